/**
 * `npm run bench`: the benchmark of docs/performance.md. Starts the fake upstream, the bare
 * undici proxy and the gateway as separate processes, drives them with a load generator in its
 * own process, prints the tables and writes every figure to bench/results/<date>.json.
 *
 * Knobs (environment): BENCH_DURATION_S, BENCH_WARMUP_S, BENCH_CONNECTIONS, BENCH_RATE,
 * BENCH_RATE_CONNECTIONS, BENCH_SCENARIOS, BENCH_LOG_LEVEL, BENCH_COMPARE_LOG_LEVELS,
 * BENCH_PROFILE, BENCH_LOAD_TOOL, BENCH_GATEWAY_NODE_ARGS, BENCH_KEEP_DATABASE, BENCH_PIN_SERVICES,
 * FAKE_LATENCY_MS, FAKE_STREAM_CHUNKS, FAKE_CHUNK_INTERVAL_MS, DATABASE_URL, REDIS_URL. See
 * docs/performance.md.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bodiesEntry } from './bodies.ts';
import { callgrindEntry } from './callgrind.ts';
import { scaleEntry } from './config-scale.ts';
import { type BudgetCheck, checkBudget, deriveFigures } from './derived.ts';
import { type BenchEntry, renderBudget } from './entries.ts';
import { extensionCostEntry } from './extension-cost.ts';
import { FAKE_MODEL } from './fake-answers.ts';
import { buildGateway } from './gateway-process.ts';
import {
  runCacheGateway,
  runExtensionGateway,
  runLogLevelGateway,
  runMainGateway,
  runWorkersGateways,
} from './gateway-runs.ts';
import { LocalServices } from './local-services.ts';
import { machineInfo } from './machine.ts';
import { memoryEntry } from './memory.ts';
import { benchOptions } from './options.ts';
import { pinSelf, planCores } from './pinning.ts';
import { killRunningChildren } from './processes.ts';
import { runProfiledGateway } from './profile-run.ts';
import { type BenchReport, renderReport, writeReport } from './report.ts';
import { chatRequest } from './requests.ts';
import { chooseLoadTool } from './saturation.ts';
import { SCENARIOS } from './scenarios.ts';
import { BenchSession } from './session.ts';
import { type BenchStorage, prepareStorage } from './storage.ts';
import { streamsEntry } from './streams.ts';
import { startFakeUpstream, startPassthroughProxy, type Upstream } from './upstreams.ts';

const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));
/** The fake takes any credential; sending one keeps the request the same size as the gateway's. */
const UPSTREAM_KEY = 'sk-bench-upstream';

/** (a), (b) and the SSE references: the same calls without the gateway. */
async function runReferences(session: BenchSession): Promise<void> {
  const { direct, proxy, sseDirect, sseProxy } = SCENARIOS;
  const json = chatRequest(FAKE_MODEL, UPSTREAM_KEY, false);
  const stream = chatRequest(FAKE_MODEL, UPSTREAM_KEY, true);
  const fake = session.fake;
  // The fake runs on the load cores: their busy share is its own, not a bound on it.
  const directTo = (request: typeof json) => ({
    origin: fake.origin,
    request,
    serverPids: () => [fake.child.pid],
    serverOnLoadCores: true,
  });
  await session.measure(direct, directTo(json));
  await session.measure(sseDirect, directTo(stream));
  if (!session.selected(proxy) && !session.selected(sseProxy) && !session.selected(SCENARIOS.sse)) return;
  let passthrough: Upstream | undefined;
  try {
    passthrough = await startPassthroughProxy(fake.origin, session.plan.serverCores);
    const target = (request: typeof json) => ({
      origin: passthrough!.origin,
      request,
      serverPids: () => [passthrough!.child.pid],
    });
    await session.measure(proxy, target(json));
    await session.measure(sseProxy, target(stream));
  } finally {
    await passthrough?.child.stop();
  }
}

/** The signals that stop the harness, with the exit status a shell gives a process they end. */
const EXIT_SIGNALS = [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const;

/**
 * Ctrl-C reaches every child through the terminal's process group; the storage is ours to drop, and
 * Redis and Postgres, pinned for the run, get their own affinity back (synchronously, first: the
 * storage cleanup may hang on a dead server). `exit` covers an error thrown outside main's `finally`.
 */
function cleanUpOnExit(storage: BenchStorage, services: LocalServices): void {
  const restore = () => {
    const restored = services.restore();
    if (restored !== null) process.stderr.write(`[bench] Redis/Postgres: ${restored}\n`);
  };
  for (const [signal, code] of EXIT_SIGNALS) {
    process.once(signal, () => {
      restore();
      void storage.cleanup().finally(() => process.exit(code));
    });
  }
  process.once('exit', restore);
}

/** The scenario tables; returns their budget lines. */
async function runScenarios(): Promise<BudgetCheck[]> {
  const date = new Date().toISOString();
  const stamp = date.replace(/[:.]/g, '-');
  const runDir = join(RESULTS_DIR, stamp);
  mkdirSync(runDir, { recursive: true });
  const options = benchOptions(process.env, RESULTS_DIR);
  const machine = machineInfo();
  const plan = planCores(1);
  pinSelf(plan.loadCores);
  const tool = chooseLoadTool(options);
  buildGateway();
  const storage = await prepareStorage(options, join(runDir, 'migrate.log'));
  const services = await LocalServices.find(options);
  cleanUpOnExit(storage, services);
  services.follow(plan);
  const fake = await startFakeUpstream(options, plan.loadCores);
  const session = new BenchSession({ options, runDir, plan, tool, storage, fake, services });
  session.log(`results in ${runDir}; ${plan.note}; load: ${tool}; storage: ${storage.description}`);
  session.log(services.note);
  if (options.databaseUrl === undefined) {
    session.notes.push(
      "embedded mode: PGlite runs inside the gateway process, so the CPU and memory of writing records and spend count as the gateway's; set DATABASE_URL (and REDIS_URL) for production figures",
    );
  }
  let profile: BenchReport['profile'] = null;
  try {
    await runReferences(session);
    await runMainGateway(session);
    await runCacheGateway(session);
    await runExtensionGateway(session);
    await runWorkersGateways(session);
    await runLogLevelGateway(session);
    profile = await runProfiledGateway(session).catch((error: Error) => {
      session.notes.push(`profile failed: ${error.message}`);
      return null;
    });
  } finally {
    services.restore();
    await fake.child.stop();
    await storage.cleanup();
  }
  session.notes.unshift(services.note);
  const derived = deriveFigures(session.results);
  const throughput = (id: string) => {
    const result = session.results.find((r) => r.spec.id === id);
    return result?.status === 'measured' ? result.figures.saturation.rps : null;
  };
  const [one, two] = [throughput(SCENARIOS.oneWorker.id), throughput(SCENARIOS.workers.id)];
  if (one !== null && two !== null) {
    session.notes.push(
      `WORKERS=2 served ${(two / one).toFixed(2)}x the calls/s of WORKERS=1 on the same cores`,
    );
  }
  const report: BenchReport = {
    schema: 1,
    date,
    machine,
    settings: {
      connections: options.connections,
      durationS: options.durationS,
      warmupS: options.warmupS,
      rate: options.rate,
      rateConnections: options.rateConnections,
      fakeLatencyMs: options.fakeLatencyMs,
      streamChunks: options.streamChunks,
      chunkIntervalMs: options.chunkIntervalMs,
      loadTool: tool,
      pinning: `${plan.note}; ${services.brief}`,
      storage: storage.description,
      gateway: `GATEWAY_VARIANT=b (default), WORKERS=1, LOG_LEVEL=${options.logLevel}, NODE_ENV=production`,
      gatewayNodeArgs: options.gatewayNodeArgs.join(' ') || 'none',
    },
    scenarios: session.results,
    derived,
    budget: checkBudget(session.results, derived),
    notes: [
      ...session.notes,
      ...session.results.flatMap((r) =>
        r.status === 'measured' ? r.notes.map((n) => `(${r.spec.id}) ${n}`) : [],
      ),
    ],
    profile,
  };
  const file = join(RESULTS_DIR, `${stamp}.json`);
  writeReport(file, report);
  process.stdout.write(`${renderReport(report)}\n\nJSON: ${file}\n`);
  return report.budget;
}

/** Every entry besides the scenario tables, in the order `npm run bench` runs them. */
const ENTRIES: readonly BenchEntry[] = [
  callgrindEntry,
  streamsEntry,
  bodiesEntry,
  memoryEntry,
  scaleEntry,
  extensionCostEntry,
];
const SCENARIO_TABLES = 'scenarios';

/** `--only a,b`: the entries named; without it, all of them. */
function selectedEntries(): string[] {
  const known = [SCENARIO_TABLES, ...ENTRIES.map((entry) => entry.id)];
  const at = process.argv.indexOf('--only');
  if (at === -1) return known;
  const ids = (process.argv[at + 1] ?? '').split(',').filter((id) => id !== '');
  const unknown = ids.filter((id) => !known.includes(id));
  if (ids.length === 0 || unknown.length > 0) {
    throw new Error(`--only: unknown entry "${unknown.join(',')}" (known: ${known.join(', ')})`);
  }
  return ids;
}

/**
 * A harness stopped by a signal sent to it alone (not Ctrl-C, which reaches the whole process
 * group) leaves no gateway, proxy or fake upstream behind. Registered first: when the scenario
 * tables' own handler (cleanUpOnExit) is there, it exits once the storage is dropped.
 */
function stopChildrenOnExit(): void {
  for (const [signal, code] of EXIT_SIGNALS) {
    process.once(signal, () => {
      killRunningChildren();
      if (process.listenerCount(signal) === 0) process.exit(code);
    });
  }
  process.once('exit', killRunningChildren);
}

async function main(): Promise<void> {
  stopChildrenOnExit();
  const ids = selectedEntries();
  // Before the scenario tables pin this process to the load cores, which would hide the others.
  const machine = machineInfo();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const budget: BudgetCheck[] = [];
  if (ids.includes(SCENARIO_TABLES)) budget.push(...(await runScenarios()));
  const figures: Record<string, unknown> = {};
  for (const entry of ENTRIES.filter((e) => ids.includes(e.id))) {
    process.stderr.write(`[bench] ${entry.id}: ${entry.title}\n`);
    const report = await entry.run(RESULTS_DIR);
    figures[entry.id] = report.figures;
    budget.push(...report.budget);
    process.stdout.write(`\n== ${entry.id}: ${entry.title}\n${report.text}\n`);
  }
  const file = join(RESULTS_DIR, `${stamp}-budget.json`);
  writeReport(file, { date: stamp, machine, budget, figures });
  process.stdout.write(
    [
      '',
      `Budget: ${budget.filter((b) => b.verdict === 'pass').length} of ${budget.length} lines pass`,
      `${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}, commit ${machine.commit}`,
      ...renderBudget(budget),
      `JSON: ${file}`,
      '',
    ].join('\n'),
  );
}

await main();
