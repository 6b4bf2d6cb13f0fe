import type { ReadinessProbe } from '../diagnostics/readiness-probe.ts';
import { withTimeout } from '../store/database.ts';

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, 'ok' | 'failed'>;
}

/** Runs every probe at once, each bounded by `timeoutMs`. */
export async function checkReadiness(
  probes: readonly ReadinessProbe[],
  timeoutMs: number,
): Promise<ReadinessReport> {
  const results = await Promise.allSettled(probes.map((p) => withTimeout(p.check(), timeoutMs, p.name)));
  const checks: Record<string, 'ok' | 'failed'> = {};
  results.forEach((result, i) => {
    checks[probes[i].name] = result.status === 'fulfilled' ? 'ok' : 'failed';
  });
  return { ready: results.every((r) => r.status === 'fulfilled'), checks };
}
