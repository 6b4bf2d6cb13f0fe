/**
 * Probe (not a bench entry): instructions per streamed event of the bare proxy's process and of
 * the gateway's worker (native and translated routes) under callgrind, at 1,000 and 10,000
 * events, to tell a cost that grows with the stream from the noise of the streams entry
 * (docs/performance.md, Streams). PROBE_ONLY=proxy or gateway measures one of them.
 * `node bench/stream-instructions.ts`; knobs BENCH_CALLGRIND_* as for the callgrind entry
 * (calls scaled per size: CALLS is the 10k figure's N, ten times that at 1k).
 */
import { Pool } from 'undici';
import {
  callgrindOptions,
  callgrindWrapper,
  calls,
  countedWindow,
  gatewayTarget,
  measuredNodeArgs,
  type Target,
  withCallgrindRun,
} from './callgrind.ts';
import { sizedBase } from './entry-rig.ts';
import { FAKE_MODEL } from './fake-answers.ts';
import { createBenchDeployment, createBenchKey, waitServing } from './gateway-setup.ts';
import type { BenchRequest } from './requests.ts';
import { chatRequest, messagesRequest } from './requests.ts';
import { startPassthroughProxy } from './upstreams.ts';

const SIZES = [1_000, 10_000];
const model = (events: number) => `bench-stream-${events}`;

async function perEvent(target: Target, pool: Pool, call: BenchRequest, events: number, label: string) {
  const { calls: n, warmup, repeats } = callgrindOptions();
  const count = n * (10_000 / events);
  await calls(pool, call, Math.round(warmup * (10_000 / events)));
  const figures: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const one = await countedWindow(target, pool, call, count);
    const two = await countedWindow(target, pool, call, 2 * count);
    figures.push(Math.round((two.main - one.main) / count / events));
  }
  process.stdout.write(`${label} ${events} events: instructions per event ${figures.join(', ')}\n`);
}

const only = process.env.PROBE_ONLY ?? 'proxy,gateway';
await withCallgrindRun('bench/results', 'stream-instructions', async (run) => {
  if (only.includes('proxy')) {
    const proxy = await startPassthroughProxy(
      run.fake.origin,
      null,
      callgrindWrapper(run.outDir),
      measuredNodeArgs(),
    );
    const target: Target = {
      origin: proxy.origin,
      servingPid: proxy.child.pid,
      hostEnv: undefined,
      stop: () => proxy.child.stop(),
    };
    const pool = new Pool(proxy.origin, { connections: 1 });
    for (const events of SIZES) {
      const call = {
        ...chatRequest(FAKE_MODEL, 'sk-bench-upstream', true),
        path: `${new URL(sizedBase(run.fake, events)).pathname}/v1/chat/completions`,
      };
      await perEvent(target, pool, call, events, 'proxy');
    }
    await pool.close();
    await proxy.child.stop();
  }
  if (!only.includes('gateway')) return;
  const target = await gatewayTarget(run.outDir, run.storage);
  try {
    const { masterKey } = run.storage;
    for (const events of SIZES) {
      await createBenchDeployment(target.origin, masterKey, sizedBase(run.fake, events), model(events));
    }
    const key = await createBenchKey(target.origin, masterKey, SIZES.map(model));
    const pool = new Pool(target.origin, { connections: 1 });
    for (const route of ['native', 'translated'] as const) {
      for (const events of SIZES) {
        const call =
          route === 'native'
            ? chatRequest(model(events), key.virtualKey, true)
            : messagesRequest(model(events), key.virtualKey, true);
        await waitServing(target.origin, call);
        await perEvent(target, pool, call, events, route);
      }
    }
    await pool.close();
  } finally {
    await target.stop();
  }
});
