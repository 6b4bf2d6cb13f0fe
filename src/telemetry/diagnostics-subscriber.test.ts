import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { afterEach, describe, it } from 'node:test';
import { publishConnectionError } from '../cache/cache-diagnostics.ts';
import { DIAGNOSTICS } from '../diagnostics/diagnostics-channels.ts';
import { createLogger } from '../diagnostics/logger.ts';
import { CONNECTION_ERROR_LOG_INTERVAL_MS, subscribeDiagnostics } from './diagnostics-subscriber.ts';
import { cooldownCounter } from './event-counter.ts';

function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger('info', sink), lines };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('subscribeDiagnostics', () => {
  let stop: (() => void) | undefined;
  afterEach(() => stop?.());

  it('logs a dropped Redis connection once per interval per connection', async () => {
    const { logger, lines } = capturedLogger();
    let clock = 1_000;
    stop = subscribeDiagnostics({ logger, cooldowns: cooldownCounter(), now: () => clock });
    const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    publishConnectionError('commands', error);
    publishConnectionError('commands', error);
    publishConnectionError('subscriber', error);
    clock += CONNECTION_ERROR_LOG_INTERVAL_MS;
    publishConnectionError('commands', error);
    await flush();
    const warnings = lines.filter((l) => l.msg === 'cache store connection failed; reconnecting');
    assert.deepEqual(
      warnings.map((l) => [l.level, l.connection, (l.err as { code: string }).code]),
      [
        ['warn', 'commands', 'ECONNREFUSED'],
        ['warn', 'subscriber', 'ECONNREFUSED'],
        ['warn', 'commands', 'ECONNREFUSED'],
      ],
    );
  });

  it('counts cooldowns in the metric and logs the spend an operator must add by hand', async () => {
    const { logger, lines } = capturedLogger();
    const cooldowns = cooldownCounter();
    stop = subscribeDiagnostics({ logger, cooldowns });
    DIAGNOSTICS.routerCooldown.publish({
      deploymentId: 'dep_a',
      publicModel: 'm',
      provider: 'openai',
      untilMs: Date.now() + 1_000,
      reason: 'server',
      durationMs: 1,
    });
    DIAGNOSTICS.spendNotWritten.publish({ deltas: [{ keyId: 'key_a', cents: 2 }] });
    await flush();
    const points = cooldowns.families()[0]?.points ?? [];
    assert.equal(points.length, 1);
    assert.equal(points[0].labels['switchyard.deployment.id'], 'dep_a');
    const lost = lines.filter((l) => l.msg === 'spend could not be written to the database before shutdown');
    assert.deepEqual(
      lost.map((l) => [l.level, l.deltas]),
      [['error', [{ keyId: 'key_a', cents: 2 }]]],
    );
  });

  it('logs the message and code of an idle database connection that failed, not the error object', async () => {
    const { logger, lines } = capturedLogger();
    stop = subscribeDiagnostics({ logger, cooldowns: cooldownCounter() });
    const error = Object.assign(new Error('terminating connection'), {
      code: '57P01',
      client: { password: 'pw' },
    });
    DIAGNOSTICS.databaseIdleError.publish({ error });
    await flush();
    const dropped = lines.filter((l) => l.msg === 'idle database connection failed; dropped');
    assert.deepEqual(
      dropped.map((l) => [l.reason, l.code]),
      [['terminating connection', '57P01']],
    );
    assert.doesNotMatch(JSON.stringify(dropped), /pw/);
  });

  it('stops once unsubscribed', async () => {
    const { logger, lines } = capturedLogger();
    const cooldowns = cooldownCounter();
    subscribeDiagnostics({ logger, cooldowns })();
    publishConnectionError('commands', new Error('gone'));
    DIAGNOSTICS.routerCooldown.publish({
      deploymentId: 'dep_a',
      publicModel: 'm',
      provider: 'openai',
      untilMs: Date.now() + 1_000,
      reason: 'server',
      durationMs: 1,
    });
    await flush();
    assert.equal(lines.length, 0);
    assert.deepEqual(cooldowns.families(), []);
  });
});
