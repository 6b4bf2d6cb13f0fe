/**
 * The latency probe, run as its own process beside the load generator: microsecond timings of
 * whole calls and of the first body byte, in two modes.
 *
 *   sequential  one connection, one call after another (concurrency 1): the added-latency and
 *               added-TTFB figures.
 *   rate        an open loop at a fixed rate over a pool (wrk2-like): latency at moderate load.
 *
 * Input: the ProbeConfig as JSON in argv[2]. Output: one JSON line `{"result": LatencySummary}`.
 */
import { performance } from 'node:perf_hooks';
import { Client, type Dispatcher, Pool } from 'undici';
import { LATE_SEND_MS, type LatencySummary, percentiles } from './latency-summary.ts';
import type { BenchRequest } from './requests.ts';

export interface ProbeConfig {
  origin: string;
  request: BenchRequest;
  mode: 'sequential' | 'rate';
  durationS: number;
  /** rate mode: calls per second and the pool's connection ceiling. */
  rate?: number;
  connections?: number;
}

interface Timing {
  ok: boolean;
  error: boolean;
  firstByteMs: number;
  endMs: number;
}

async function call(dispatcher: Dispatcher, request: BenchRequest): Promise<Timing> {
  try {
    const answer = await dispatcher.request({
      method: request.method,
      path: request.path,
      headers: request.headers,
      body: request.body,
    });
    let firstByteMs = 0;
    for await (const _chunk of answer.body) if (firstByteMs === 0) firstByteMs = performance.now();
    const endMs = performance.now();
    const ok = answer.statusCode >= 200 && answer.statusCode < 300;
    return { ok, error: false, firstByteMs: firstByteMs || endMs, endMs };
  } catch {
    return { ok: false, error: true, firstByteMs: 0, endMs: performance.now() };
  }
}

function emptySummary(): LatencySummary {
  return {
    ...percentiles([]),
    count: 0,
    non2xx: 0,
    errors: 0,
    ttfb: null,
    achievedRate: null,
    fromSchedule: null,
    lateSends: null,
  };
}

async function sequential(config: ProbeConfig): Promise<LatencySummary> {
  const client = new Client(config.origin, { pipelining: 1, keepAliveTimeout: 60_000 });
  const totals: number[] = [];
  const firstBytes: number[] = [];
  const summary = emptySummary();
  const endAt = performance.now() + config.durationS * 1000;
  while (performance.now() < endAt) {
    const startMs = performance.now();
    const timing = await call(client, config.request);
    if (timing.ok) {
      totals.push(timing.endMs - startMs);
      firstBytes.push(timing.firstByteMs - startMs);
    } else if (timing.error) summary.errors++;
    else summary.non2xx++;
  }
  await client.close();
  return { ...summary, ...percentiles(totals), count: totals.length, ttfb: percentiles(firstBytes) };
}

async function atRate(config: ProbeConfig): Promise<LatencySummary> {
  const rate = config.rate ?? 100;
  const pool = new Pool(config.origin, {
    connections: config.connections ?? 32,
    pipelining: 1,
    keepAliveTimeout: 60_000,
  });
  const intervalMs = 1000 / rate;
  const totals: number[] = [];
  const firstBytes: number[] = [];
  const scheduled: number[] = [];
  const summary = { ...emptySummary(), lateSends: 0 };
  const calls: Promise<void>[] = [];
  const startMs = performance.now();
  const total = Math.floor(config.durationS * rate);
  let sent = 0;
  const fire = (dueMs: number) => {
    const sentMs = performance.now();
    if (sentMs - dueMs > LATE_SEND_MS) summary.lateSends++;
    calls.push(
      call(pool, config.request).then((timing) => {
        if (timing.ok) {
          totals.push(timing.endMs - sentMs);
          firstBytes.push(timing.firstByteMs - sentMs);
          scheduled.push(timing.endMs - dueMs);
        } else if (timing.error) summary.errors++;
        else summary.non2xx++;
      }),
    );
  };
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && startMs + sent * intervalMs <= now) fire(startMs + sent++ * intervalMs);
      if (sent >= total) return resolve();
      setTimeout(tick, Math.max(0, startMs + sent * intervalMs - performance.now()));
    };
    tick();
  });
  const sendWindowS = (performance.now() - startMs) / 1000;
  await Promise.all(calls);
  await pool.close();
  return {
    ...summary,
    ...percentiles(totals),
    count: totals.length,
    ttfb: percentiles(firstBytes),
    achievedRate: Math.round(sent / sendWindowS),
    fromSchedule: percentiles(scheduled),
  };
}

const config = JSON.parse(process.argv[2] ?? '{}') as ProbeConfig;
const result = config.mode === 'rate' ? await atRate(config) : await sequential(config);
process.stdout.write(`${JSON.stringify({ result })}\n`);
