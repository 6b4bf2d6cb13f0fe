/**
 * Measures one scenario against one target: unrecorded warm-up, then throughput at saturation
 * (with the server's CPU time and RSS read from /proc meanwhile), latency at a fixed moderate
 * rate, and latency at concurrency 1.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { LatencySummary } from './latency-summary.ts';
import type { BenchOptions } from './options.ts';
import { runProbe } from './probe-runner.ts';
import { cpuSeconds, sampleRss } from './proc-stats.ts';
import type { BenchRequest } from './requests.ts';
import { type LoadTool, type SaturationRun, saturate } from './saturation.ts';

export interface ScenarioTarget {
  origin: string;
  request: BenchRequest;
  /** The server under test, whose CPU and memory the scenario is charged. */
  serverPids: () => number[];
}

export interface MeasureContext {
  options: BenchOptions;
  tool: LoadTool;
  loadCores: string | null;
  loadThreads: number;
  scratchDir: string;
}

/** Which phases to run: extra rows (workers, log level) only need saturation. */
export interface Phases {
  rate: boolean;
  sequential: boolean;
}

export interface ScenarioFigures {
  saturation: SaturationRun;
  /** CPU seconds (user + system) of the server per 1,000 answered calls at saturation. */
  cpuSecondsPer1000: number;
  /** Resident memory of the server during saturation. */
  rssMb: { median: number; max: number };
  rate: LatencySummary | null;
  sequential: LatencySummary | null;
  /** How long the server took to go idle before each phase (a long wait is a backlog). */
  settledMs: number[];
}

const ALL_PHASES: Phases = { rate: true, sequential: true };

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

export async function measureScenario(
  target: ScenarioTarget,
  context: MeasureContext,
  phases: Phases = ALL_PHASES,
): Promise<ScenarioFigures> {
  const { options } = context;
  const load = (durationS: number) =>
    saturate(context.tool, {
      origin: target.origin,
      request: target.request,
      connections: options.connections,
      durationS,
      cores: context.loadCores,
      threads: context.loadThreads,
      scratchDir: context.scratchDir,
    });
  if (options.warmupS > 0) await load(Math.max(1, Math.round(options.warmupS)));

  const pids = target.serverPids();
  const settledMs = [await settle(pids)];
  const cpuBefore = cpuSeconds(pids);
  const stopRss = sampleRss(pids);
  const saturation = await load(options.durationS);
  const rss = stopRss();
  const cpu = cpuSeconds(pids) - cpuBefore;

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
  const rate = phases.rate ? await probe('rate') : null;
  if (phases.rate) settledMs.push(await settle(pids));
  const sequential = phases.sequential ? await probe('sequential') : null;
  return {
    saturation,
    cpuSecondsPer1000:
      saturation.ok === 0 ? Number.NaN : Math.round((cpu / saturation.ok) * 1000 * 1000) / 1000,
    rssMb: { median: rss.medianMb, max: rss.maxMb },
    rate,
    sequential,
    settledMs,
  };
}
