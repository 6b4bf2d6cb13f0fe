/**
 * The scenarios of docs/performance.md. Each names the scenario it is compared with for added
 * latency (`baseline`: the same call straight to the fake) and for throughput (`nodeLimit`: the
 * same call through the bare undici proxy).
 */
import type { ScenarioFigures } from './measure.ts';

export interface ScenarioSpec {
  id: string;
  title: string;
  baseline: string | null;
  nodeLimit: string | null;
}

const spec = (id: string, title: string, baseline: string | null, nodeLimit: string | null): ScenarioSpec =>
  Object.freeze({ id, title, baseline, nodeLimit });

export const SCENARIOS = Object.freeze({
  direct: spec('a', 'direct to the fake upstream (the floor)', null, null),
  proxy: spec('b', 'bare undici pass-through proxy (the Node.js limit)', 'a', null),
  master: spec('c', 'gateway, master key', 'a', 'b'),
  virtualKey: spec('d', 'gateway, virtual key: RPM/TPM/budget, records, cost', 'a', 'b'),
  sseDirect: spec('e.direct', 'SSE direct to the fake upstream', null, null),
  sseProxy: spec('e.proxy', 'SSE through the pass-through proxy', 'e.direct', null),
  sse: spec('e', 'SSE through the gateway, virtual key', 'e.direct', 'e.proxy'),
  cacheHit: spec('f', 'response cache hit, virtual key', 'a', 'b'),
  messages: spec('g', 'Anthropic Messages in, OpenAI Chat out, virtual key', 'a', 'b'),
  extension: spec('h', 'gateway, master key, one trivial beforeUpstream extension', 'a', 'b'),
  oneWorker: spec('c.workers-1', 'gateway, master key, WORKERS=1, cores as for WORKERS=2', 'a', 'b'),
  workers: spec('c.workers-2', 'gateway, master key, WORKERS=2', 'a', 'b'),
});

/** Scenario (c) again at another LOG_LEVEL, to show what the access log costs. */
export function logLevelSpec(level: string): ScenarioSpec {
  return spec(`c.log-${level}`, `gateway, master key, LOG_LEVEL=${level}`, 'a', 'b');
}

export type ScenarioResult =
  | { spec: ScenarioSpec; status: 'measured'; figures: ScenarioFigures; notes: string[] }
  | { spec: ScenarioSpec; status: 'not available' | 'failed' | 'skipped'; reason: string };

/** BENCH_SCENARIOS=a,c runs those and their variants (`c` includes `c.workers-2`). */
export function isSelected(only: ReadonlySet<string>, id: string): boolean {
  return only.size === 0 || only.has(id) || only.has(id.split('.')[0]);
}
