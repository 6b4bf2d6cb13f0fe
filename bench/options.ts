/**
 * The harness's knobs, all from the environment so `npm run bench` needs no arguments. Defaults
 * are what the published figures use (docs/performance.md); trial runs shorten the duration.
 */

export interface BenchOptions {
  /** Seconds of each measured phase (saturation, fixed rate, concurrency 1). */
  durationS: number;
  /** Seconds of unrecorded load before each scenario, so the JIT and the pools are warm. */
  warmupS: number;
  /**
   * Connection counts of the saturation phase, in the order tried: the phase runs at each until one
   * serves fewer calls/s than the best so far, and the best is the scenario's throughput. One count
   * alone is not always saturation: in one run (d) at 64 connections left the gateway's core idle
   * a sixth of the time, waiting on Redis, and a run at 128 served more; in others 64 served most.
   */
  connections: readonly number[];
  /** Requests per second of the fixed-rate phase: moderate, well under saturation. */
  rate: number;
  /** Connections the fixed-rate phase may open; it is an open loop, so this is only a ceiling. */
  rateConnections: number;
  /** Fixed latency of the fake upstream before each answer (0 = answer at once). */
  fakeLatencyMs: number;
  /** Content chunks of a streamed answer (role, content..., finish, usage and [DONE] come on top). */
  streamChunks: number;
  /** Pause between SSE events of the fake (0 = written back to back). */
  chunkIntervalMs: number;
  /** LOG_LEVEL of the gateway under test. */
  logLevel: string;
  /** Extra Node.js flags for the gateway (e.g. `--max-old-space-size=128`); none by default. */
  gatewayNodeArgs: string[];
  /** Also measure scenario (c) at the other log level, to price the access log. */
  compareLogLevels: boolean;
  /** The scenario of the profiled pass (`--cpu-prof`): (c), (d) or (e); null for none. */
  profile: 'c' | 'd' | 'e' | null;
  /** `auto` (wrk when installed, else autocannon), `autocannon` or `wrk`. */
  loadTool: 'auto' | 'autocannon' | 'wrk';
  /** Scenario ids to run (`a,b,c`); empty = all. */
  only: ReadonlySet<string>;
  /** Where the run's JSON, logs and profiles go. */
  resultsDir: string;
  /**
   * Pin a Redis and a Postgres that run on this host to the load cores for the run (their own
   * affinity is given back at the end): they are not the server under test.
   */
  pinServices: boolean;
  /** Keep the database created for the run (DATABASE_URL mode) instead of dropping it. */
  keepDatabase: boolean;
  /** Admin/server Postgres URL (a fresh database is created on it) or undefined for embedded. */
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

function number(env: Env, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min)
    throw new Error(`${name} must be a number >= ${min} (got "${raw}")`);
  return value;
}

function numberList(env: Env, name: string, fallback: number[], min: number): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const values = raw.split(',').map((item) => Number(item.trim()));
  if (values.some((value) => !Number.isInteger(value) || value < min))
    throw new Error(`${name} must be whole numbers >= ${min}, comma-separated (got "${raw}")`);
  return values;
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  return raw === '1' || raw === 'true';
}

function loadToolOf(env: Env): BenchOptions['loadTool'] {
  const raw = env.BENCH_LOAD_TOOL ?? 'auto';
  if (raw !== 'auto' && raw !== 'autocannon' && raw !== 'wrk') {
    throw new Error(`BENCH_LOAD_TOOL must be auto, autocannon or wrk (got "${raw}")`);
  }
  return raw;
}

function profileOf(env: Env): BenchOptions['profile'] {
  const raw = env.BENCH_PROFILE ?? '';
  if (raw === '' || raw === '0' || raw === 'false') return null;
  if (raw === '1' || raw === 'true' || raw === 'd') return 'd';
  if (raw === 'c' || raw === 'e') return raw;
  throw new Error(`BENCH_PROFILE must be 0, 1 (= d), c, d or e (got "${raw}")`);
}

export function benchOptions(env: Env, resultsDir: string): BenchOptions {
  const only = (env.BENCH_SCENARIOS ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  return {
    durationS: number(env, 'BENCH_DURATION_S', 10, 1),
    warmupS: number(env, 'BENCH_WARMUP_S', 5, 0),
    connections: numberList(env, 'BENCH_CONNECTIONS', [64, 128, 256], 1),
    rate: number(env, 'BENCH_RATE', 500, 1),
    rateConnections: number(env, 'BENCH_RATE_CONNECTIONS', 32, 1),
    fakeLatencyMs: number(env, 'FAKE_LATENCY_MS', 0, 0),
    streamChunks: number(env, 'FAKE_STREAM_CHUNKS', 16, 1),
    chunkIntervalMs: number(env, 'FAKE_CHUNK_INTERVAL_MS', 0, 0),
    logLevel: env.BENCH_LOG_LEVEL ?? 'info',
    gatewayNodeArgs: (env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
    compareLogLevels: flag(env, 'BENCH_COMPARE_LOG_LEVELS', true),
    profile: profileOf(env),
    loadTool: loadToolOf(env),
    only: new Set(only),
    resultsDir,
    pinServices: flag(env, 'BENCH_PIN_SERVICES', true),
    keepDatabase: flag(env, 'BENCH_KEEP_DATABASE', false),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
  };
}
