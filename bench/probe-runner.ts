/** Runs the latency probe (latency-probe.ts) in its own process and returns its summary. */
import { fileURLToPath } from 'node:url';
import type { ProbeConfig } from './latency-probe.ts';
import type { LatencySummary } from './latency-summary.ts';
import { readJsonLine, startChild } from './processes.ts';

const PROBE = fileURLToPath(new URL('./latency-probe.ts', import.meta.url));
const RESULT_MARGIN_MS = 60_000;

export async function runProbe(config: ProbeConfig, cores: string | null): Promise<LatencySummary> {
  const child = startChild({ args: [PROBE, JSON.stringify(config)], env: {}, cores, logFile: null });
  try {
    const line = await readJsonLine<{ result: LatencySummary }>(
      child.child,
      (value) => 'result' in value,
      config.durationS * 1000 + RESULT_MARGIN_MS,
    );
    return line.result;
  } finally {
    await child.stop();
  }
}
