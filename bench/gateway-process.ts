/**
 * The gateway under test: what `npm start` runs (the build in `dist/`, `node dist/main.js serve`)
 * in its own process, configured the way an operator runs it (environment only,
 * NODE_ENV=production), on 127.0.0.1 and a free port.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { processTree, rssBytes } from './proc-stats.ts';
import { type BenchChild, startChild } from './processes.ts';
import type { BenchStorage } from './storage.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUILT_MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
/**
 * The profiled run serves from the source: Node's type stripping keeps every line where it is, so
 * the profile names `src/` files and lines, which the build's output would not.
 */
const SOURCE_MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
/** Start-up includes PGlite's first open and migrations in embedded mode. */
const READY_TIMEOUT_MS = 90_000;
/** Under valgrind every instruction is translated first: start-up takes many times longer. */
const WRAPPED_READY_TIMEOUT_MS = 600_000;

export interface GatewaySettings {
  label: string;
  workers: number;
  logLevel: string;
  /** RESPONSE_CACHE_TTL_MS; 0 leaves the cache off. */
  responseCacheTtlMs: number;
  cores: string | null;
  /** `--cpu-prof` into this directory. */
  cpuProfileDir: string | null;
  /** Node.js flags before the script (BENCH_GATEWAY_NODE_ARGS). */
  nodeArgs: string[];
  logFile: string;
  port: number;
  /** Runs node under this program (callgrind); start-up then takes minutes, not seconds. */
  wrapper?: readonly string[];
}

export interface GatewayProcess {
  readonly origin: string;
  readonly settings: GatewaySettings;
  /** The primary first, then its workers (every `serve` supervises at least one). */
  pids(): number[];
  /** Resident memory once ready, before any load. */
  readonly idleRssMb: number;
  stop(): Promise<void>;
}

/**
 * One worker, unpinned, no response cache, no profile: the gateway of the budget entries, its log
 * in `logDir/<label>.log`.
 */
export function entrySettings(
  label: string,
  logDir: string,
  port: number,
  options: { logLevel?: string; gatewayNodeArgs?: string[] } = {},
): GatewaySettings {
  return {
    label,
    workers: 1,
    logLevel: options.logLevel ?? 'info',
    responseCacheTtlMs: 0,
    cores: null,
    cpuProfileDir: null,
    nodeArgs: options.gatewayNodeArgs ?? [],
    logFile: join(logDir, `${label}.log`),
    port,
  };
}

/** `npm run build`, as `npm start` does first, so the run measures the source as it is now. */
export function buildGateway(): void {
  execFileSync(`${ROOT}node_modules/.bin/tsc`, ['-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

async function waitReady(
  origin: string,
  child: BenchChild,
  logFile: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.child.exitCode !== null) throw new Error(`gateway exited at start; see ${logFile}`);
    try {
      const answer = await request(`${origin}/health/ready`);
      await answer.body.dump();
      if (answer.statusCode === 200) return;
    } catch {
      // Not listening yet.
    }
    await delay(100);
  }
  throw new Error(`gateway not ready within ${timeoutMs} ms; see ${logFile}`);
}

export async function startGateway(
  settings: GatewaySettings,
  storage: BenchStorage,
): Promise<GatewayProcess> {
  const execArgv = [
    ...settings.nodeArgs,
    ...(settings.cpuProfileDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${settings.cpuProfileDir}`]),
  ];
  const child = startChild({
    args: [...execArgv, settings.cpuProfileDir === null ? BUILT_MAIN : SOURCE_MAIN, 'serve'],
    env: {
      ...storage.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(settings.port),
      LOG_LEVEL: settings.logLevel,
      WORKERS: String(settings.workers),
      RESPONSE_CACHE_TTL_MS: String(settings.responseCacheTtlMs),
    },
    cores: settings.cores,
    logFile: settings.logFile,
    wrapper: settings.wrapper,
  });
  const origin = `http://127.0.0.1:${settings.port}`;
  try {
    const timeoutMs = settings.wrapper === undefined ? READY_TIMEOUT_MS : WRAPPED_READY_TIMEOUT_MS;
    await waitReady(origin, child, settings.logFile, timeoutMs);
  } catch (error) {
    await child.stop();
    throw error;
  }
  return {
    origin,
    settings,
    idleRssMb: Math.round(rssBytes(processTree(child.pid)) / 1_048_576),
    pids: () => processTree(child.pid),
    stop: () => child.stop(),
  };
}
