/**
 * wrk (github.com/wg/wrk), when installed: a C load generator that costs less CPU per call than
 * autocannon, so a slower machine measures the server rather than the client. The request is set
 * by a Lua script (wrk's `wrk.method`, `wrk.body`, `wrk.headers`).
 */
import { execFile, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pinPrefix } from './pinning.ts';
import type { BenchRequest } from './requests.ts';
import type { SaturationRun } from './saturation.ts';

const run = promisify(execFile);

let wrkPresent: boolean | undefined;

export function hasWrk(): boolean {
  wrkPresent ??= spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
  return wrkPresent;
}

/** A JSON string literal is a valid Lua string literal for the ASCII bodies the bench sends. */
function luaScript(request: BenchRequest): string {
  const lines = [
    `wrk.method = ${JSON.stringify(request.method)}`,
    `wrk.body = ${JSON.stringify(request.body)}`,
  ];
  for (const [name, value] of Object.entries(request.headers)) {
    lines.push(`wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `1.23ms`, `850.00us`, `1.02s` -> milliseconds. */
function durationMs(text: string): number {
  const value = Number.parseFloat(text);
  if (text.endsWith('us')) return value / 1000;
  if (text.endsWith('ms')) return value;
  if (text.endsWith('m')) return value * 60_000;
  return value * 1000;
}

function percentile(output: string, label: string): number {
  const line = output.split('\n').find((l) => l.trim().startsWith(`${label}%`));
  return line === undefined ? Number.NaN : durationMs(line.trim().split(/\s+/)[1]);
}

export function parseWrkOutput(output: string, durationS: number): SaturationRun {
  const total = Number(/(\d+) requests in/.exec(output)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const errors = socket === null ? 0 : socket.slice(1).reduce((sum, n) => sum + Number(n), 0);
  const ok = total - non2xx;
  return {
    tool: 'wrk',
    ok,
    non2xx,
    errors,
    durationS,
    rps: Math.round(ok / durationS),
    latencyMs: {
      p50: percentile(output, '50'),
      p90: percentile(output, '90'),
      p99: percentile(output, '99'),
    },
  };
}

export async function runWrk(options: {
  origin: string;
  request: BenchRequest;
  connections: number;
  durationS: number;
  cores: string | null;
  threads: number;
  scratchDir: string;
}): Promise<SaturationRun> {
  const script = join(options.scratchDir, 'wrk-request.lua');
  writeFileSync(script, luaScript(options.request));
  const threads = Math.max(1, Math.min(options.threads, options.connections));
  const [command, ...args] = [
    ...pinPrefix(options.cores),
    'wrk',
    `-t${threads}`,
    `-c${options.connections}`,
    `-d${options.durationS}s`,
    '--latency',
    '-s',
    script,
    `${options.origin}${options.request.path}`,
  ];
  const { stdout } = await run(command, args, { maxBuffer: 1 << 20 });
  return parseWrkOutput(stdout, options.durationS);
}
