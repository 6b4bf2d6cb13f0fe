import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { afterEach, describe, it } from 'node:test';
import { deliverToSubscriber, publishConnectionError } from '../cache/cache-diagnostics.ts';
import { CONNECTION_ERROR_LOG_INTERVAL_MS, logCacheDiagnostics } from './cache-log-subscriber.ts';
import { createLogger } from './logger.ts';

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

describe('logCacheDiagnostics', () => {
  let stop: (() => void) | undefined;
  afterEach(() => stop?.());

  it('logs a dropped Redis connection, once per interval per connection (regression: a drop left no log line)', async () => {
    const { logger, lines } = capturedLogger();
    let clock = 1_000;
    stop = logCacheDiagnostics(logger, () => clock);
    const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    publishConnectionError({ store: 'redis', connection: 'commands', error });
    publishConnectionError({ store: 'redis', connection: 'commands', error });
    publishConnectionError({ store: 'redis', connection: 'subscriber', error });
    clock += CONNECTION_ERROR_LOG_INTERVAL_MS;
    publishConnectionError({ store: 'redis', connection: 'commands', error });
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

  it('logs every pub/sub handler that threw, naming the channel', async () => {
    const { logger, lines } = capturedLogger();
    stop = logCacheDiagnostics(logger);
    deliverToSubscriber(
      'memory',
      'sy:router-settings',
      () => {
        throw new Error('bad settings message');
      },
      '{}',
    );
    await flush();
    const errors = lines.filter(
      (l) => l.msg === 'cache store pub/sub handler failed; the message was dropped',
    );
    assert.equal(errors.length, 1);
    assert.equal(errors[0].level, 'error');
    assert.equal(errors[0].channel, 'sy:router-settings');
  });

  it('stops logging once unsubscribed', async () => {
    const { logger, lines } = capturedLogger();
    logCacheDiagnostics(logger)();
    publishConnectionError({ store: 'redis', connection: 'commands', error: new Error('gone') });
    await flush();
    assert.equal(lines.length, 0);
  });
});
