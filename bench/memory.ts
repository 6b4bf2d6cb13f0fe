/**
 * `npm run bench -- --only memory`: budget line 4. (1) Resident memory at steady load: the gateway
 * (WORKERS=1: the primary and its worker, summed; the worker alone is shown too) under virtual-key
 * calls at BENCH_MEMORY_CONNECTIONS connections (16), against the bare proxy (b) under the same
 * load in the same run. RSS is sampled every 250 ms in two windows of BENCH_DURATION_S each, the
 * median of each is its figure: the first after BENCH_WARMUP_S of load, and the steady one, the
 * line's, after BENCH_MEMORY_WARMUP_S (30): a fresh worker's first full collection under load
 * comes 10-15 s in, at a limit V8 set from start-up's allocation rate, so the first window reads
 * that ramp, not the heap's cycle under the load. (2) Memory per open stream: a fresh gateway,
 * 1,000 streamed calls held open by the upstreams (bench/open-streams.ts), BENCH_MEMORY_STREAMS
 * to change the number. The load generator is the scenarios' (wrk or autocannon, bench/saturation.ts).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BudgetCheck } from './derived.ts';
import { type BenchEntry, budgetLine, type EntryReport } from './entries.ts';
import { FAKE_MODEL } from './fake-answers.ts';
import { freePort } from './free-port.ts';
import { buildGateway, entrySettings, startGateway } from './gateway-process.ts';
import { createBenchDeployment, createBenchKey, waitServing } from './gateway-setup.ts';
import { machineInfo } from './machine.ts';
import { measureOpenStreams, STREAM_UPSTREAMS, type StreamMemory, WARM_MODEL } from './open-streams.ts';
import { type BenchOptions, benchOptions } from './options.ts';
import { sampleRss } from './proc-stats.ts';
import { BENCH_MODEL, type BenchRequest, chatRequest } from './requests.ts';
import { chooseLoadTool, type LoadTool, saturate } from './saturation.ts';
import { prepareStorage } from './storage.ts';
import { startFakeUpstream, startPassthroughProxy, type Upstream } from './upstreams.ts';

const BUDGET = { overProxyMb: 100, kbPerStream: 50 };
/** The fake's pause between events while streams are held: 20 events, about 40 s a stream. */
const HOLD_INTERVAL_MS = 2_000;

interface SteadyRss {
  connections: number;
  calls: number;
  /**
   * Calls of the measured phases (proxy and gateway) answered other than 2xx, or failed: a run
   * with any is no measure of steady load. autocannon sends on a connection the gateway closes
   * after HTTP_MAX_REQUESTS_PER_SOCKET answers and gets Node.js's bodiless 503 from then on, so on
   * a machine without wrk the gateway served 16,000 calls and then only those.
   */
  failedCalls: number;
  /** The steady window, after BENCH_MEMORY_WARMUP_S of load: the line's figures. */
  proxyMb: number;
  gatewayMb: number;
  workerMb: number;
  gatewayReadyMb: number;
  /** The first window, after BENCH_WARMUP_S of load (the line's figures until stop 47). */
  first: { proxyMb: number; gatewayMb: number; workerMb: number };
  /** Seconds of load before each window. */
  firstAfterS: number;
  steadyAfterS: number;
}

interface Run {
  options: BenchOptions;
  tool: LoadTool;
  outDir: string;
  fake: Upstream;
}

/** The medians of each pid list's RSS in the two windows of one continuous load (see above). */
async function underLoad(run: Run, origin: string, request: BenchRequest, pidLists: number[][]) {
  const connections = Number(process.env.BENCH_MEMORY_CONNECTIONS ?? 16);
  const { firstAfterS, steadyAfterS } = windows(run);
  const load = (durationS: number) =>
    saturate(run.tool, {
      origin,
      request,
      connections,
      durationS,
      cores: null,
      threads: 1,
      scratchDir: run.outDir,
    });
  const sampled = async () => {
    const stops = pidLists.map((pids) => sampleRss(pids));
    const result = await load(run.options.durationS);
    return { result, medians: stops.map((stop) => stop().medianMb) };
  };
  if (firstAfterS > 0) await load(firstAfterS);
  const first = await sampled();
  const settle = steadyAfterS - firstAfterS - run.options.durationS;
  if (settle > 0) await load(settle);
  const steady = await sampled();
  const failedCalls = [first, steady].reduce((sum, { result }) => sum + result.non2xx + result.errors, 0);
  return { connections, calls: steady.result.ok, failedCalls, first: first.medians, medians: steady.medians };
}

/** Seconds of load before the first window and before the steady one. */
function windows(run: Run): { firstAfterS: number; steadyAfterS: number } {
  const firstAfterS = Math.round(run.options.warmupS);
  const steadyAfterS = Number(process.env.BENCH_MEMORY_WARMUP_S ?? 30);
  return { firstAfterS, steadyAfterS: Math.max(steadyAfterS, firstAfterS + run.options.durationS) };
}

async function steadyRss(run: Run): Promise<SteadyRss> {
  const proxy = await startPassthroughProxy(run.fake.origin, null);
  let proxyMb: number;
  let proxyFirstMb: number;
  let proxyFailed: number;
  try {
    const call = chatRequest(FAKE_MODEL, 'sk-bench-upstream', false);
    const measured = await underLoad(run, proxy.origin, call, [[proxy.child.pid]]);
    [proxyMb] = measured.medians;
    [proxyFirstMb] = measured.first;
    proxyFailed = measured.failedCalls;
  } finally {
    await proxy.child.stop();
  }
  const storage = await prepareStorage(run.options, join(run.outDir, 'steady-migrate.log'));
  try {
    const gateway = await startGateway(
      entrySettings('memory-steady', run.outDir, await freePort(), run.options),
      storage,
    );
    try {
      await createBenchDeployment(gateway.origin, storage.masterKey, run.fake.origin);
      const key = await createBenchKey(gateway.origin, storage.masterKey);
      const call = chatRequest(BENCH_MODEL, key.virtualKey, false);
      await waitServing(gateway.origin, call);
      const pids = gateway.pids();
      const measured = await underLoad(run, gateway.origin, call, [pids, [pids[1]]]);
      const [gatewayMb, workerMb] = measured.medians;
      const [firstGatewayMb, firstWorkerMb] = measured.first;
      return {
        connections: measured.connections,
        calls: measured.calls,
        failedCalls: proxyFailed + measured.failedCalls,
        proxyMb,
        gatewayMb,
        workerMb,
        gatewayReadyMb: gateway.idleRssMb,
        first: { proxyMb: proxyFirstMb, gatewayMb: firstGatewayMb, workerMb: firstWorkerMb },
        ...windows(run),
      };
    } finally {
      await gateway.stop();
    }
  } finally {
    await storage.cleanup();
  }
}

async function openStreamMemory(run: Run): Promise<StreamMemory> {
  const count = Number(process.env.BENCH_MEMORY_STREAMS ?? 1_000);
  const holding = { ...run.options, chunkIntervalMs: HOLD_INTERVAL_MS };
  const fakes = await Promise.all(
    Array.from({ length: STREAM_UPSTREAMS }, () => startFakeUpstream(holding, null)),
  );
  const storage = await prepareStorage(run.options, join(run.outDir, 'streams-migrate.log'));
  try {
    // 1,000 calls admitted at once can wait on Redis and Postgres longer than the 1 s default bound
    // on a loaded machine, and a 503 would end the measure; the bound does not change what a call holds.
    const slowDependencies = { ...storage, env: { ...storage.env, DEPENDENCY_TIMEOUT_MS: '10000' } };
    const settings = entrySettings('memory-streams', run.outDir, await freePort(), run.options);
    const gateway = await startGateway(settings, slowDependencies);
    try {
      const { masterKey } = storage;
      for (const fake of fakes) await createBenchDeployment(gateway.origin, masterKey, fake.origin);
      await createBenchDeployment(gateway.origin, masterKey, run.fake.origin, WARM_MODEL);
      const key = await createBenchKey(gateway.origin, masterKey, [BENCH_MODEL, WARM_MODEL]);
      await waitServing(gateway.origin, chatRequest(WARM_MODEL, key.virtualKey, false));
      return await measureOpenStreams(gateway, key.virtualKey, fakes, count);
    } finally {
      await gateway.stop();
    }
  } finally {
    await storage.cleanup();
    await Promise.all(fakes.map((fake) => fake.child.stop()));
  }
}

function budget(steady: SteadyRss | null, streams: StreamMemory | null): BudgetCheck[] {
  return [
    budgetLine(
      `(memory) gateway RSS (primary + worker) at steady load at most the bare proxy's + ${BUDGET.overProxyMb} MB: over the proxy`,
      steady === null || steady.failedCalls > 0 ? null : Math.round(steady.gatewayMb - steady.proxyMb),
      BUDGET.overProxyMb,
      ' MB',
    ),
    budgetLine(
      `(memory) per open stream, ${streams?.streams ?? 1000} streams open, after a full GC, at most ${BUDGET.kbPerStream} KB`,
      streams?.kbPerStream ?? null,
      BUDGET.kbPerStream,
      ' KB',
    ),
  ];
}

function failedNote(failedCalls: number): string {
  if (failedCalls === 0) return '';
  return `, ${failedCalls.toLocaleString('en')} failed: not a measure of steady load (with autocannon, install wrk)`;
}

function render(steady: SteadyRss, streams: StreamMemory): string {
  const machine = machineInfo();
  return [
    `memory: RSS from /proc (VmRSS), WORKERS=1; machine: ${machine.cores} cores, ${machine.cpuModel}, Node ${machine.node}, commit ${machine.commit}, load average ${machine.loadAverage.join(' ')}`,
    `steady load (virtual key, ${steady.connections} connections, after ${steady.steadyAfterS} s of load, ${steady.calls.toLocaleString('en')} calls measured${failedNote(steady.failedCalls)}): bare proxy ${steady.proxyMb} MB; gateway ${steady.gatewayMb} MB (worker ${steady.workerMb} MB; ${steady.gatewayReadyMb} MB when ready)`,
    `first window (after ${steady.firstAfterS} s of load): bare proxy ${steady.first.proxyMb} MB; gateway ${steady.first.gatewayMb} MB (worker ${steady.first.workerMb} MB): ${Math.round(steady.first.gatewayMb - steady.first.proxyMb)} MB over the proxy`,
    `open streams (${streams.streams}, virtual key): before ${streams.beforeMb} MB (worker ${streams.workerMb.before}), open ${streams.openMb} MB (worker ${streams.workerMb.open}), open after a full GC ${streams.openAfterGcMb} MB (worker ${streams.workerMb.openAfterGc}): ${streams.kbPerStream} KB per stream (${streams.kbPerStreamBeforeGc} KB before the GC)`,
  ].join('\n');
}

async function runMemory(resultsDir: string): Promise<EntryReport> {
  const outDir = join(resultsDir, `memory-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(outDir, { recursive: true });
  const options = benchOptions(process.env, resultsDir);
  buildGateway();
  const fake = await startFakeUpstream(options, null);
  const run: Run = { options, tool: chooseLoadTool(options), outDir, fake };
  try {
    const steady = await steadyRss(run);
    const streams = await openStreamMemory(run);
    return { text: render(steady, streams), budget: budget(steady, streams), figures: { steady, streams } };
  } finally {
    await fake.child.stop();
  }
}

export const memoryEntry: BenchEntry = {
  id: 'memory',
  title: 'resident memory at steady load and per open stream (budget line 4)',
  run: runMemory,
};
