import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

const REDIS_HOST = '127.0.0.1';
const REDIS_PORT = 6379;

/** The gateway's log lines with this message, parsed. */
function linesWith(gw: TestGateway, msg: string): Record<string, unknown>[] {
  return gw.logs
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes(msg))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

// The cache stores publish these events on diagnostics channels; the gateway's telemetry is what
// turns them into log lines (regression: nothing subscribed, so a Redis drop left no line).
describe('cache store events in the gateway log', () => {
  let proxy: TcpProxy;
  let gw: TestGateway;
  before(async () => {
    proxy = await startTcpProxy({ targetHost: REDIS_HOST, targetPort: REDIS_PORT });
    gw = await startTestGateway({ env: { REDIS_URL: `redis://${REDIS_HOST}:${proxy.port}` } });
  });
  after(async () => {
    proxy.restore();
    await gw.close();
    await proxy.close();
  });

  it('logs a pub/sub handler that threw, naming the channel, and keeps delivering', async () => {
    const cache = gw.gateway.runtime.cache;
    const delivered: string[] = [];
    const unsubscribe = await cache.subscribe('diagnostics-test', (message) => {
      delivered.push(message);
      if (message === 'bad') throw new Error('handler broke');
    });
    await cache.publish('diagnostics-test', 'bad');
    await cache.publish('diagnostics-test', 'good');
    await eventually(() => assert.deepEqual(delivered, ['bad', 'good']));
    await unsubscribe();
    const failed = linesWith(gw, 'cache store pub/sub handler failed; the message was dropped');
    assert.equal(failed.length, 1);
    assert.equal(failed[0].level, 'error');
    assert.equal(failed[0].channel, 'diagnostics-test');
    assert.equal((failed[0].err as { message: string }).message, 'handler broke');
  });

  it('logs a dropped Redis connection', async () => {
    proxy.cut();
    await eventually(() => {
      const dropped = linesWith(gw, 'cache store connection failed; reconnecting');
      assert.deepEqual(dropped.map((line) => line.level).slice(0, 1), ['warn']);
      assert.ok(dropped.every((line) => line.store === 'redis'));
    }, 10_000);
    proxy.restore();
  });
});
