import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { entrySettings } from '../../bench/gateway-process.ts';
import { benchOptions } from '../../bench/options.ts';

// Broke unseen: the memory entry passed the run's options, whose flags are `gatewayNodeArgs`,
// and entrySettings read `nodeArgs`, so BENCH_GATEWAY_NODE_ARGS never reached its gateways.
describe('entrySettings', () => {
  it("starts the entry's gateway with BENCH_GATEWAY_NODE_ARGS and BENCH_LOG_LEVEL", () => {
    const options = benchOptions(
      { BENCH_GATEWAY_NODE_ARGS: '--max-semi-space-size=16 --trace-gc', BENCH_LOG_LEVEL: 'warn' },
      '/tmp',
    );
    const settings = entrySettings('memory-steady', '/tmp', 1, options);
    assert.deepEqual(settings.nodeArgs, ['--max-semi-space-size=16', '--trace-gc']);
    assert.equal(settings.logLevel, 'warn');
  });
});
