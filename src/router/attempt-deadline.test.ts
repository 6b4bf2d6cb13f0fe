import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from '../errors/gateway-error.ts';
import { ClientAbortedError } from '../upstream/upstream-failure.ts';
import { AttemptDeadline } from './attempt-deadline.ts';

describe('AttemptDeadline', () => {
  it('aborts the attempt when the client leaves, and says so', () => {
    const client = new AbortController();
    const deadline = new AttemptDeadline(client.signal, 60_000);
    client.abort();
    assert.equal(deadline.signal.aborted, true);
    assert.ok(deadline.explain(new Error('aborted')) instanceof ClientAbortedError);
    deadline.clear();
  });

  it('starts aborted for a client already gone', () => {
    const client = new AbortController();
    client.abort();
    const deadline = new AttemptDeadline(client.signal, 60_000);
    assert.equal(deadline.signal.aborted, true);
    deadline.clear();
  });

  it('aborts at the total timeout and reports a timeout', async () => {
    const deadline = new AttemptDeadline(new AbortController().signal, 20);
    await sleep(60);
    assert.equal(deadline.signal.aborted, true);
    const error = deadline.explain(new Error('aborted'));
    assert.ok(error instanceof GatewayError && error.code === 'timeout');
  });

  it('once cleared, neither the timer nor the client touch the attempt', async () => {
    const client = new AbortController();
    const deadline = new AttemptDeadline(client.signal, 20);
    deadline.clear();
    client.abort();
    await sleep(60);
    assert.equal(deadline.signal.aborted, false);
  });
});
