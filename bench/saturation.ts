/** Throughput at saturation: the load generator in its own process, at a fixed connection count. */
import { fileURLToPath } from 'node:url';
import type { AutocannonConfig } from './autocannon-child.ts';
import type { BenchOptions } from './options.ts';
import { readJsonLine, startChild } from './processes.ts';
import type { BenchRequest } from './requests.ts';
import { hasWrk, runWrk } from './wrk-runner.ts';

export interface SaturationRun {
  tool: 'autocannon' | 'wrk';
  /** 2xx answers. */
  ok: number;
  non2xx: number;
  errors: number;
  durationS: number;
  /** 2xx answers per second. */
  rps: number;
  /** The tool's own latency figures (autocannon's are whole milliseconds). */
  latencyMs: { p50: number; p90: number; p99: number };
}

export type LoadTool = SaturationRun['tool'];

const AUTOCANNON_CHILD = fileURLToPath(new URL('./autocannon-child.ts', import.meta.url));
/** Margin over the run's duration before a silent load generator counts as stuck. */
const RESULT_MARGIN_MS = 60_000;

export function chooseLoadTool(options: BenchOptions): LoadTool {
  if (options.loadTool === 'wrk' && !hasWrk())
    throw new Error('BENCH_LOAD_TOOL=wrk but wrk is not installed');
  if (options.loadTool === 'autocannon') return 'autocannon';
  return hasWrk() ? 'wrk' : 'autocannon';
}

export interface SaturationTarget {
  origin: string;
  request: BenchRequest;
  connections: number;
  durationS: number;
  cores: string | null;
  /** Threads wrk may use: one per load core. */
  threads: number;
  scratchDir: string;
}

export async function saturate(tool: LoadTool, target: SaturationTarget): Promise<SaturationRun> {
  if (tool === 'wrk') return runWrk(target);
  const config: AutocannonConfig = {
    origin: target.origin,
    request: target.request,
    connections: target.connections,
    durationS: target.durationS,
  };
  const child = startChild({
    args: [AUTOCANNON_CHILD, JSON.stringify(config)],
    env: {},
    cores: target.cores,
    logFile: null,
  });
  try {
    const line = await readJsonLine<{ result: SaturationRun }>(
      child.child,
      (value) => 'result' in value,
      target.durationS * 1000 + RESULT_MARGIN_MS,
    );
    return line.result;
  } finally {
    await child.stop();
  }
}
