import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../diagnostics/logger.ts';
import { type AlertEvent, alertEvent } from './alert-event.ts';
import { AlertQueue, type AlertQueueSettings } from './alert-queue.ts';
import type { AttemptFailure } from './webhook-sender.ts';

type Send = (event: AlertEvent, signal: AbortSignal) => Promise<AttemptFailure | null>;

function setup(send: Send, settings: Partial<AlertQueueSettings> = {}) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  const queue = new AlertQueue({
    send,
    logger: createLogger('info', sink),
    settings: { backoffMs: 5, ...settings },
  });
  return { queue, lines };
}

const tripped = (n: number) =>
  alertEvent('extension.tripped', { extensionId: `ext-${n}`, critical: true, reason: 'x' });
const nameOf = (event: AlertEvent) => (event.data as { extensionId: string }).extensionId;
const settle = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

/** A send that holds every attempt until released (or aborted), recording what it was given. */
function heldSend() {
  const seen: string[] = [];
  const waiting: (() => void)[] = [];
  const send: Send = (event, signal) => {
    seen.push(nameOf(event));
    return new Promise((resolve) => {
      waiting.push(() => resolve(null));
      signal.addEventListener('abort', () => resolve({ error: 'aborted' }));
    });
  };
  const releaseAll = async () => {
    while (waiting.length > 0) {
      waiting.shift()?.();
      await settle(1);
    }
  };
  return { seen, send, releaseAll };
}

describe('AlertQueue', () => {
  it('returns from push at once and sends in order', async () => {
    const sent: string[] = [];
    const { queue } = setup(async (event) => {
      sent.push(nameOf(event));
      return null;
    });
    for (let n = 1; n <= 3; n++) queue.push(tripped(n));
    await settle();
    assert.deepEqual(sent, ['ext-1', 'ext-2', 'ext-3']);
    assert.equal(queue.size, 0);
    await queue.close(100);
  });

  it('holds at most `capacity` events, drops the oldest, and logs how many', async () => {
    const { seen, send, releaseAll } = heldSend();
    const { queue, lines } = setup(send, { capacity: 3 });
    for (let n = 1; n <= 10; n++) queue.push(tripped(n));
    assert.equal(queue.size, 3);
    await releaseAll();
    await settle();
    assert.deepEqual(
      seen,
      ['ext-1', 'ext-8', 'ext-9', 'ext-10'],
      'the first was in flight; the newest three follow',
    );
    await queue.close(100);
    const drops = lines.find(
      (line) => line.msg === 'alert webhook: events dropped (queue full or shutting down)',
    );
    assert.equal(drops?.alerts, 7);
  });

  it('retries a failed event with a doubling backoff, at most maxAttempts times, then drops it', async () => {
    const attempts: number[] = [];
    const { queue, lines } = setup(
      async () => {
        attempts.push(performance.now());
        return { status: 503 };
      },
      { maxAttempts: 4, backoffMs: 20 },
    );
    queue.push(tripped(1));
    await settle(400);
    assert.equal(attempts.length, 4);
    const gaps = attempts.slice(1).map((at, index) => at - attempts[index]);
    assert.ok(gaps[0] >= 19 && gaps[1] >= 39 && gaps[2] >= 79, `gaps ${gaps.map(Math.round).join(', ')}`);
    assert.equal(lines.filter((line) => line.msg === 'alert webhook attempt failed; retrying').length, 3);
    const dropped = lines.find((line) => line.msg === 'alert webhook delivery failed; event dropped');
    assert.equal(dropped?.status, 503);
    assert.equal(dropped?.attempt, 4);
    await queue.close(100);
  });

  it('moves on after a failure that succeeds on retry', async () => {
    let calls = 0;
    const sent: string[] = [];
    const { queue } = setup(async (event) => {
      calls += 1;
      if (calls === 1) return { error: 'ECONNREFUSED' };
      sent.push(nameOf(event));
      return null;
    });
    queue.push(tripped(1));
    queue.push(tripped(2));
    await settle(100);
    assert.deepEqual(sent, ['ext-1', 'ext-2']);
    await queue.close(100);
  });

  it('on close, gives up a receiver that hangs at the deadline and counts what it abandons', async () => {
    const { send } = heldSend();
    const { queue, lines } = setup(send);
    for (let n = 1; n <= 3; n++) queue.push(tripped(n));
    const started = performance.now();
    await queue.close(150);
    const tookMs = performance.now() - started;
    assert.ok(tookMs >= 140 && tookMs < 1_000, `close took ${Math.round(tookMs)} ms`);
    const abandoned = lines.find((line) => line.msg === 'alert webhook: events abandoned at shutdown');
    assert.equal(abandoned?.alerts, 3);
    queue.push(tripped(4));
    assert.equal(queue.size, 0, 'nothing is taken once closed');
  });

  it('on close, cuts a backoff short and sends what is queued once more', async () => {
    let attempts = 0;
    const { queue } = setup(
      async () => {
        attempts += 1;
        return attempts === 1 ? { status: 500 } : null;
      },
      { backoffMs: 60_000 },
    );
    queue.push(tripped(1));
    await settle();
    const started = performance.now();
    await queue.close(5_000);
    assert.ok(performance.now() - started < 1_000);
    assert.equal(attempts, 2);
  });
});
