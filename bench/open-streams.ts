/**
 * Memory per open stream (budget line 4): the gateway's resident memory before and while 1,000
 * streamed virtual-key calls are open at once, over their number. The upstreams hold each stream
 * open by pausing between events (the fake's FAKE_CHUNK_INTERVAL_MS). The gateway keeps at most
 * 128 connections per upstream origin, as the bare proxy does, so the streams are spread over a
 * pool of ten fakes, each a deployment of the bench model: every stream is then a live upstream
 * stream, not a call queued for a connection.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, request } from 'undici';
import type { GatewayProcess } from './gateway-process.ts';
import { send } from './gateway-setup.ts';
import { openHeapCollector } from './inspector-gc.ts';
import { sampleRss } from './proc-stats.ts';
import { BENCH_MODEL, type BenchRequest, chatRequest } from './requests.ts';
import { fakeCalls, type Upstream } from './upstreams.ts';

/** Upstreams the streams are spread over: 1,000 / 10 stays well under 128 per origin. */
export const STREAM_UPSTREAMS = 10;
/** The model the warm-up streams use, on an upstream that does not pause. */
export const WARM_MODEL = 'bench-warm';
const WARMUP_STREAMS = 500;
const SAMPLE_MS = 3_000;
const OPEN_TIMEOUT_MS = 60_000;

export interface StreamMemory {
  streams: number;
  /** Primary and worker; the worker alone in `workerMb`. */
  beforeMb: number;
  /** Median while open, before any forced collection. */
  openMb: number;
  /** Median while open, after a full collection: what the open streams hold. */
  openAfterGcMb: number;
  workerMb: { before: number; open: number; openAfterGc: number };
  /** (openAfterGc - before) / streams. */
  kbPerStream: number;
  /** (open - before) / streams, garbage of opening them included. */
  kbPerStreamBeforeGc: number;
}

async function streamsServed(fakes: readonly Upstream[]): Promise<number> {
  const counts = await Promise.all(fakes.map(async (fake) => fakeCalls(fake)));
  return counts.reduce((sum, count) => sum + count, 0);
}

async function warm(gateway: GatewayProcess, key: string): Promise<void> {
  const call = chatRequest(WARM_MODEL, key, true);
  for (let i = 0; i < WARMUP_STREAMS; i += 10) {
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(gateway.origin, call)));
    const failed = answers.find((answer) => answer.status !== 200);
    if (failed !== undefined) throw new Error(`warm-up stream answered ${failed.status}: ${failed.body}`);
  }
}

/** Opens `count` streams; resolves once every one has its headers and every upstream stream began. */
async function openStreams(
  agent: Agent,
  origin: string,
  call: BenchRequest,
  count: number,
  fakes: Upstream[],
) {
  const started = await streamsServed(fakes);
  const answers = await Promise.all(
    Array.from({ length: count }, () =>
      request(`${origin}${call.path}`, {
        method: call.method,
        headers: call.headers,
        body: call.body,
        dispatcher: agent,
      }),
    ),
  );
  const refused = answers.find((answer) => answer.statusCode !== 200);
  if (refused !== undefined)
    throw new Error(`a stream answered ${refused.statusCode}: ${await refused.body.text()}`);
  const deadline = Date.now() + OPEN_TIMEOUT_MS;
  while ((await streamsServed(fakes)) - started < count) {
    if (Date.now() > deadline) throw new Error(`the upstreams did not see ${count} streams`);
    await delay(100);
  }
  // Read as they come, so no stream stalls on a full socket.
  for (const answer of answers) answer.body.resume();
}

async function sampleFor(pids: number[]): Promise<{ all: number; worker: number }> {
  const stopAll = sampleRss(pids);
  const stopWorker = sampleRss([pids[1]]);
  await delay(SAMPLE_MS);
  return { all: stopAll().medianMb, worker: stopWorker().medianMb };
}

/**
 * `gateway` serves the key on WARM_MODEL (a fast upstream) and BENCH_MODEL (the holding pool of
 * `fakes`). Both readings are taken after a full collection, so what each holds is live or kept.
 */
export async function measureOpenStreams(
  gateway: GatewayProcess,
  key: string,
  fakes: Upstream[],
  count: number,
): Promise<StreamMemory> {
  await warm(gateway, key);
  const pids = gateway.pids();
  const heap = await openHeapCollector(pids[1]);
  const agent = new Agent({ connections: count + 10 });
  try {
    await heap.collect();
    const before = await sampleFor(pids);
    await openStreams(agent, gateway.origin, chatRequest(BENCH_MODEL, key, true), count, fakes);
    const open = await sampleFor(pids);
    await heap.collect();
    const openAfterGc = await sampleFor(pids);
    const kb = (mb: number) => Math.round(((mb - before.all) * 1024) / count);
    return {
      streams: count,
      beforeMb: before.all,
      openMb: open.all,
      openAfterGcMb: openAfterGc.all,
      workerMb: { before: before.worker, open: open.worker, openAfterGc: openAfterGc.worker },
      kbPerStream: kb(openAfterGc.all),
      kbPerStreamBeforeGc: kb(open.all),
    };
  } finally {
    heap.close();
    await agent.destroy();
  }
}
