import assert from 'node:assert/strict';
import type { FakeServer, RecordedRequest } from '../fakes/fake-server.ts';
import type { TestGateway } from './gateway.ts';

/**
 * Posts `body` to the gateway as it is (its own spacing, escapes and bytes) with the master key,
 * fails unless it is answered 200, and returns what `fake` received for it.
 */
export async function sentUpstream<Recorded extends RecordedRequest>(
  gw: TestGateway,
  fake: FakeServer<Recorded>,
  path: string,
  body: string | Buffer,
): Promise<Recorded> {
  const answer = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
    body,
  });
  assert.equal(answer.status, 200, await answer.clone().text());
  await answer.arrayBuffer();
  const received = fake.lastRequest;
  assert.ok(received);
  return received;
}
