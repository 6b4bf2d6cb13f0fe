import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { alertEvent } from './alert-event.ts';
import { WebhookSender } from './webhook-sender.ts';

const SECRET = 'sender-test-secret-0123456789';
const event = () => alertEvent('extension.tripped', { extensionId: 'x', critical: true, reason: 'r' });

/** A port that was just free: nothing listens there. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('WebhookSender', () => {
  it('describes a connection failure without the URL or the secret', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/hooks/TOKEN-in-the-path`;
    const failure = await new WebhookSender({ url, secret: SECRET }).send(
      event(),
      AbortSignal.timeout(5_000),
    );
    assert.ok(failure !== null && 'error' in failure, JSON.stringify(failure));
    assert.match(failure.error, /ECONNREFUSED/);
    assert.ok(!failure.error.includes('TOKEN-in-the-path') && !failure.error.includes(SECRET), failure.error);
  });

  it('counts a redirect as a failure instead of following it', async () => {
    const server = createServer((_request, response) =>
      response.writeHead(307, { location: '/elsewhere' }).end(),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const sender = new WebhookSender({ url: `http://127.0.0.1:${port}/hooks`, secret: SECRET });
      assert.deepEqual(await sender.send(event(), AbortSignal.timeout(5_000)), { status: 307 });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
