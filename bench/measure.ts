/**
 * Measures one scenario against one target: unrecorded warm-up, then throughput at saturation
 * (with the server's CPU time and RSS read from /proc meanwhile, and the CPU of the local Redis and
 * Postgres and how busy the load cores were), latency at a fixed moderate rate, and latency at
 * concurrency 1.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { LatencySummary } from './latency-summary.ts';
import type { LocalServices } from './local-services.ts';
import type { BenchOptions } from './options.ts';
import { coresOf } from './pinning.ts';
import { runProbe } from './probe-runner.ts';
import { coreTicks, cpuSeconds, sampleRss } from './proc-stats.ts';
import type { BenchRequest } from './requests.ts';
import { type LoadTool, type SaturationRun, saturate } from './saturation.ts';

export interface ScenarioTarget {
  origin: string;
  request: BenchRequest;
  /** The server under test, whose CPU and memory the scenario is charged. */
  serverPids: () => number[];
  /** The server runs on the load cores (the fake upstream, direct): their busy share is not measured. */
  serverOnLoadCores?: boolean;
}

export interface MeasureContext {
  options: BenchOptions;
  tool: LoadTool;
  loadCores: string | null;
  /** The load cores when they are the load's alone (the plan is applied), else null: not measured. */
  busyCores: string | null;
  loadThreads: number;
  scratchDir: string;
  /** The local Redis and Postgres, whose CPU is measured apart from the server's. */
  services: Pick<LocalServices, 'meter'>;
}

/** Which phases to run: extra rows (workers, log level) only need saturation. */
export interface Phases {
  rate: boolean;
  sequential: boolean;
}

/** Calls/s of the saturation phase at one connection count. */
export interface SweepPoint {
  connections: number;
  rps: number;
}

export interface ScenarioFigures {
  /** The saturation phase that served the most calls/s (the scenario's throughput). */
  saturation: SaturationRun;
  /** Its connection count. */
  connections: number;
  /** Every saturation phase run, in order (BENCH_CONNECTIONS, up to the first that served fewer). */
  sweep: readonly SweepPoint[];
  /** CPU seconds (user + system) of the server per 1,000 answered calls at saturation. */
  cpuSecondsPer1000: number;
  /**
   * CPU seconds of the local Redis and Postgres (each one's whole process tree) per 1,000 answered
   * calls at saturation: the storage work the server's own figure leaves out. Null as a whole when
   * neither runs on this host (embedded storage, a remote server), null for one that does not.
   */
  dependencyCpuSecondsPer1000: { redis: number | null; postgres: number | null } | null;
  /**
   * Busy share (0..1) of the load cores during saturation: the load generator, the fake upstream
   * and, when pinned there, Redis and Postgres. Near 1, the load side may be what bounds the
   * throughput. Null when nothing was pinned (the cores are shared with the server).
   */
  loadCoresBusy: number | null;
  /** Resident memory of the server during the best saturation phase. */
  rssMb: { median: number; max: number };
  /** Resident memory of the server during the fixed-rate phase (null when it did not run). */
  rateRssMb: { median: number; max: number } | null;
  rate: LatencySummary | null;
  sequential: LatencySummary | null;
  /** How long the server took to go idle before each phase (a long wait is a backlog). */
  settledMs: number[];
}

const ALL_PHASES: Phases = { rate: true, sequential: true };

/** Seconds per 1,000 answered calls, to the millisecond (NaN when nothing was answered). */
function per1000(seconds: number, calls: number): number {
  return calls === 0 ? Number.NaN : Math.round((seconds / calls) * 1000 * 1000) / 1000;
}

/** Starts watching `cores`; the returned function gives their busy share since (null: not watched). */
function meterCores(cores: string | null): () => number | null {
  if (cores === null) return () => null;
  const list = coresOf(cores);
  const before = coreTicks(list);
  return () => {
    const after = coreTicks(list);
    const total = after.total - before.total;
    return total === 0 ? null : Math.round(((after.busy - before.busy) / total) * 1000) / 1000;
  };
}

/** A server using less than this share of a core is idle enough to start the next phase. */
const IDLE_CPU_SHARE = 0.1;
const SETTLE_STEP_MS = 250;
/** Longest wait for idle: a server still busy after this has a leak or a runaway timer. */
const SETTLE_MAX_MS = 20_000;

/**
 * Waits until the server is idle, so that work left over from one phase (the record queue's
 * backlog after saturation, a major GC) is not charged to the next. Returns the wait in ms.
 */
async function settle(pids: readonly number[]): Promise<number> {
  const startedAt = Date.now();
  let previous = cpuSeconds(pids);
  let quietSteps = 0;
  while (Date.now() - startedAt < SETTLE_MAX_MS && quietSteps < 2) {
    await delay(SETTLE_STEP_MS);
    const now = cpuSeconds(pids);
    quietSteps = (now - previous) / (SETTLE_STEP_MS / 1000) < IDLE_CPU_SHARE ? quietSteps + 1 : 0;
    previous = now;
  }
  return Date.now() - startedAt;
}

/** One saturation phase at one connection count, and what the server and the load cores spent on it. */
interface SaturationPhase {
  connections: number;
  saturation: SaturationRun;
  cpuSeconds: number;
  services: ReturnType<ReturnType<MeasureContext['services']['meter']>>;
  rss: ReturnType<ReturnType<typeof sampleRss>>;
  loadCoresBusy: number | null;
}

type Load = (connections: number, durationS: number) => Promise<SaturationRun>;

async function saturationPhase(
  target: ScenarioTarget,
  context: MeasureContext,
  load: Load,
  connections: number,
): Promise<SaturationPhase> {
  const pids = target.serverPids();
  const cpuBefore = cpuSeconds(pids);
  const stopRss = sampleRss(pids);
  const stopServices = context.services.meter();
  const stopCores = meterCores(target.serverOnLoadCores ? null : context.busyCores);
  const saturation = await load(connections, context.options.durationS);
  const loadCoresBusy = stopCores();
  const services = stopServices();
  const rss = stopRss();
  return { connections, saturation, cpuSeconds: cpuSeconds(pids) - cpuBefore, services, rss, loadCoresBusy };
}

/**
 * Saturation: a phase at each connection count in turn, until one serves fewer calls/s than the
 * best so far (past the knee, more connections only queue); the best phase is the throughput.
 */
async function sweepSaturation(
  target: ScenarioTarget,
  context: MeasureContext,
  load: Load,
): Promise<{ best: SaturationPhase; sweep: SweepPoint[]; settledMs: number[] }> {
  let best: SaturationPhase | null = null;
  const sweep: SweepPoint[] = [];
  const settledMs: number[] = [];
  for (const connections of context.options.connections) {
    settledMs.push(await settle(target.serverPids()));
    const phase = await saturationPhase(target, context, load, connections);
    sweep.push({ connections, rps: phase.saturation.rps });
    if (best !== null && phase.saturation.rps < best.saturation.rps) break;
    best = phase;
  }
  if (best === null) throw new Error('BENCH_CONNECTIONS lists no connection count');
  return { best, sweep, settledMs };
}

export async function measureScenario(
  target: ScenarioTarget,
  context: MeasureContext,
  phases: Phases = ALL_PHASES,
): Promise<ScenarioFigures> {
  const { options } = context;
  const load: Load = (connections, durationS) =>
    saturate(context.tool, {
      origin: target.origin,
      request: target.request,
      connections,
      durationS,
      cores: context.loadCores,
      threads: context.loadThreads,
      scratchDir: context.scratchDir,
    });
  if (options.warmupS > 0) await load(options.connections[0], Math.max(1, Math.round(options.warmupS)));

  const pids = target.serverPids();
  const { best, sweep, settledMs } = await sweepSaturation(target, context, load);
  const { saturation, services, rss, loadCoresBusy } = best;

  const probe = (mode: 'rate' | 'sequential') =>
    runProbe(
      {
        origin: target.origin,
        request: target.request,
        mode,
        durationS: options.durationS,
        rate: options.rate,
        connections: options.rateConnections,
      },
      context.loadCores,
    );
  settledMs.push(await settle(pids));
  let rateRss: ReturnType<ReturnType<typeof sampleRss>> | null = null;
  let rate: LatencySummary | null = null;
  if (phases.rate) {
    const stopRateRss = sampleRss(pids);
    rate = await probe('rate');
    rateRss = stopRateRss();
  }
  if (phases.rate) settledMs.push(await settle(pids));
  const sequential = phases.sequential ? await probe('sequential') : null;
  return {
    saturation,
    connections: best.connections,
    sweep,
    cpuSecondsPer1000: per1000(best.cpuSeconds, saturation.ok),
    dependencyCpuSecondsPer1000:
      services === null
        ? null
        : {
            redis: services.redis === null ? null : per1000(services.redis, saturation.ok),
            postgres: services.postgres === null ? null : per1000(services.postgres, saturation.ok),
          },
    loadCoresBusy,
    rssMb: { median: rss.medianMb, max: rss.maxMb },
    rateRssMb: rateRss && { median: rateRss.medianMb, max: rateRss.maxMb },
    rate,
    sequential,
    settledMs,
  };
}
