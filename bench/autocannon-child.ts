/**
 * autocannon in its own process (pinned with the fake upstream, away from the server under test).
 * Input: AutocannonConfig as JSON in argv[2]. Output: one JSON line `{"result": SaturationRun}`.
 */
import { createRequire } from 'node:module';
import type { BenchRequest } from './requests.ts';
import type { SaturationRun } from './saturation.ts';

export interface AutocannonConfig {
  origin: string;
  request: BenchRequest;
  connections: number;
  durationS: number;
}

/** The part of autocannon's result this harness reads (autocannon README, "Results"). */
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  latency: { p50: number; p90: number; p99: number };
}

type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

// autocannon is CommonJS without types; only its promise API is used.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const config = JSON.parse(process.argv[2] ?? '{}') as AutocannonConfig;
const result = await autocannon({
  url: `${config.origin}${config.request.path}`,
  method: config.request.method,
  headers: config.request.headers,
  body: config.request.body,
  connections: config.connections,
  pipelining: 1,
  duration: config.durationS,
});
const run: SaturationRun = {
  tool: 'autocannon',
  ok: result['2xx'],
  non2xx: result.non2xx,
  errors: result.errors + result.timeouts,
  durationS: result.duration,
  rps: Math.round(result['2xx'] / result.duration),
  latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99 },
};
process.stdout.write(`${JSON.stringify({ result: run })}\n`);
