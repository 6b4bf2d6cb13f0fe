/**
 * `npm run bench -- --only bodies`: budget line 3 of issue 36, large bodies. Prompts of 64 KiB,
 * 1 MiB, 4 MiB and 16 MiB (a chat request whose user message holds them, a short answer), and
 * JSON answers of 64 KiB, 1 MiB and 4 MiB (a short request, the fake's `chat.completion` of that
 * many bytes of content), on the native route with the virtual key, one call at a time.
 *
 * Per size: the serving process's CPU per call and the longest main-thread stall over the
 * window, read inside the gateway by a preload (bench/stall-monitor.ts, reported on SIGUSR2): its
 * CPU to the microsecond (/proc's 10 ms ticks were a quarter of a window's CPU once a 1 MiB answer
 * cost about a millisecond), the
 * longest stretch of main-thread CPU between two turns of the loop, held to the budget, and the
 * event loop's wall-clock delay, shown (on a shared machine it counts waits for a core). A
 * preload, because the gateway exposes no event-loop lag of its own and bench code stays out of
 * src/. Lines: no stall over 10 ms up to 1 MiB; above it a
 * stall of at most 10 ms per MiB of body (it grows no faster than the body); CPU per MiB at the
 * largest size at most 1.25x that at 1 MiB (linear in size).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { callsInTurn } from './callgrind.ts';
import type { BudgetCheck } from './derived.ts';
import { type BenchEntry, budgetLine, type EntryReport } from './entries.ts';
import { type EntryRig, startEntryRig } from './entry-rig.ts';
import { machineInfo } from './machine.ts';
import { monotonicUs } from './profile-run.ts';
import { type BenchRequest, chatRequest } from './requests.ts';

const STALL_MONITOR = fileURLToPath(new URL('./stall-monitor.ts', import.meta.url));
const MIB = 1_048_576;
const PROMPT_SIZES = [64 * 1024, MIB, 4 * MIB, 16 * MIB] as const;
const ANSWER_SIZES = [64 * 1024, MIB, 4 * MIB] as const;
const BUDGET = { stallMs: 10, stallMsPerMib: 10, cpuGrowth: 1.25 };
/**
 * Bytes moved per window: enough calls that one full collection more or less (10-20 ms) is small
 * against the window's CPU, which a window of 8 calls of 4 MiB was not.
 */
const WINDOW_BYTES = 256 * MIB;
const SMALL_MODEL = 'bench-body-small';

interface Figure {
  kind: 'prompt' | 'answer';
  bytes: number;
  calls: number;
  cpuMsPerCall: number;
  /** The longest stretch of main-thread CPU without a turn of the loop: the figure of record. */
  maxStallMs: number;
  /** The event loop's longest delay by the wall clock, time waiting for a core included. */
  maxDelayMs: number;
  /** Full collections in the window, and the longest one's pause (wall clock). */
  fullGcs: number;
  fullGcMaxMs: number;
  /** The largest resident set of the serving process in the window (MB). */
  rssMaxMb: number;
  /** The measured calls on the monotonic clock, to cut a profile (BENCH_BODIES_PROFILE) into windows. */
  fromUs: number;
  toUs: number;
}

/** Words of the fake's answer whose `word<i>` content (space-separated) comes to `bytes`. */
function wordsFor(bytes: number): number {
  let total = 0;
  let words = 0;
  while (total < bytes) total += `word${words++}`.length + 1;
  return words;
}

const answerModel = (bytes: number) => `bench-body-${bytes}`;

/**
 * A short chat call answered with `bytes` of content. Its `max_tokens` covers what the fake bills
 * (one completion token a word): with the default 64, the budget reserved for 64 tokens and the
 * settlement logged an overspend warning on every call, work a normal call does not do.
 */
function answerCall(key: string, bytes: number): BenchRequest {
  const call = chatRequest(answerModel(bytes), key, false);
  const body = JSON.parse(call.body) as { max_tokens: number };
  body.max_tokens = wordsFor(bytes);
  return { ...call, body: JSON.stringify(body) };
}

/** A chat call whose user message is `bytes` of text. */
function promptCall(key: string, bytes: number): BenchRequest {
  const call = chatRequest(SMALL_MODEL, key, false);
  const body = JSON.parse(call.body) as { messages: { content: string }[] };
  body.messages[1].content = 'lorem ipsum '.repeat(Math.ceil(bytes / 12)).slice(0, bytes);
  return { ...call, body: JSON.stringify(body) };
}

/** What bench/stall-monitor.ts writes for a window of calls. */
interface StallWindow {
  maxMs: number;
  cpuMaxMs: number;
  cpuMs: number;
  fullGcs: number;
  fullGcMaxMs: number;
  rssMaxMb: number;
}

class StallReader {
  readonly #file: string;
  readonly #pid: number;
  #window = 0;

  constructor(dir: string, pid: number) {
    this.#file = join(dir, `${pid}.json`);
    this.#pid = pid;
  }

  /** The longest stall since the last reading (ms); the monitor starts a new window. */
  async read(): Promise<StallWindow> {
    process.kill(this.#pid, 'SIGUSR2');
    const wanted = ++this.#window;
    for (let i = 0; i < 200; i++) {
      if (existsSync(this.#file)) {
        const seen = JSON.parse(readFileSync(this.#file, 'utf8')) as StallWindow & { window: number };
        if (seen.window === wanted) return seen;
      }
      await delay(25);
    }
    throw new Error(`the stall monitor of pid ${this.#pid} did not answer (is the preload loaded?)`);
  }
}

async function measure(
  rig: EntryRig,
  stalls: StallReader,
  kind: Figure['kind'],
  bytes: number,
  call: BenchRequest,
): Promise<Figure> {
  const pool = new Pool(rig.gateway.origin, { connections: 1 });
  try {
    const count = Math.max(8, Math.round(WINDOW_BYTES / bytes));
    await callsInTurn(pool, call, 3);
    await stalls.read();
    const fromUs = monotonicUs();
    await callsInTurn(pool, call, count);
    const toUs = monotonicUs();
    const stall = await stalls.read();
    const figure = {
      kind,
      bytes,
      calls: count,
      cpuMsPerCall: stall.cpuMs / count,
      maxStallMs: stall.cpuMaxMs,
      maxDelayMs: stall.maxMs,
      fullGcs: stall.fullGcs,
      fullGcMaxMs: stall.fullGcMaxMs,
      rssMaxMb: stall.rssMaxMb,
      fromUs,
      toUs,
    };
    process.stderr.write(`[bodies] ${JSON.stringify(figure)}\n`);
    return figure;
  } finally {
    await pool.close();
  }
}

const sizeText = (bytes: number) => (bytes < MIB ? `${bytes / 1024} KiB` : `${bytes / MIB} MiB`);

function render(figures: readonly Figure[]): string {
  const machine = machineInfo();
  return [
    'Large bodies, native route, virtual key, one call at a time: CPU of the serving process and its longest main-thread stall',
    `machine: ${machine.cores} cores, ${machine.cpuModel}, Node ${machine.node}, commit ${machine.commit}`,
    '| body | size | calls | CPU ms per call | CPU ms per MiB | longest stall ms (main-thread CPU) | longest loop delay ms (wall clock) | full collections, longest ms | largest RSS MB |',
    '|---|---|---|---|---|---|---|---|---|',
    ...figures.map(
      (f) =>
        `| ${f.kind} | ${sizeText(f.bytes)} | ${f.calls} | ${f.cpuMsPerCall.toFixed(1)} | ${(f.cpuMsPerCall / (f.bytes / MIB)).toFixed(1)} | ${f.maxStallMs.toFixed(1)} | ${f.maxDelayMs.toFixed(1)} | ${f.fullGcs}, ${f.fullGcMaxMs.toFixed(1)} | ${f.rssMaxMb.toFixed(0)} |`,
    ),
  ].join('\n');
}

function kindBudget(figures: readonly Figure[], kind: Figure['kind']): BudgetCheck[] {
  const own = figures.filter((f) => f.kind === kind);
  const small = own.filter((f) => f.bytes <= MIB);
  const large = own.filter((f) => f.bytes > MIB);
  const perMib = (f: Figure) => f.cpuMsPerCall / (f.bytes / MIB);
  const atMib = own.find((f) => f.bytes === MIB);
  const largest = own.at(-1);
  const growth = atMib === undefined || largest === undefined ? null : perMib(largest) / perMib(atMib);
  const maxOf = (values: number[]) => (values.length === 0 ? null : Math.max(...values));
  return [
    budgetLine(
      `bodies, ${kind}: longest stall up to 1 MiB`,
      maxOf(small.map((f) => f.maxStallMs)),
      BUDGET.stallMs,
      ' ms',
    ),
    budgetLine(
      `bodies, ${kind}: longest stall per MiB above 1 MiB`,
      maxOf(large.map((f) => f.maxStallMs / (f.bytes / MIB))),
      BUDGET.stallMsPerMib,
      ' ms/MiB',
    ),
    budgetLine(
      `bodies, ${kind}: CPU per MiB at ${sizeText(largest?.bytes ?? 0)} / at 1 MiB (linear)`,
      growth,
      BUDGET.cpuGrowth,
      'x',
    ),
  ];
}

async function runBodies(resultsDir: string): Promise<EntryReport> {
  const stallDir = join(resultsDir, 'stalls');
  mkdirSync(stallDir, { recursive: true });
  const models = new Map<string, number>([[SMALL_MODEL, 16]]);
  for (const bytes of ANSWER_SIZES) models.set(answerModel(bytes), wordsFor(bytes));
  const rig = await startEntryRig(resultsDir, {
    id: 'bodies',
    models,
    nodeArgs: ['--import', STALL_MONITOR],
    env: { BENCH_STALL_DIR: stallDir },
    // The profiler slows every call: its figures are for finding the work, not for the budget.
    cpuProfile: process.env.BENCH_BODIES_PROFILE === '1',
  });
  const figures: Figure[] = [];
  try {
    const stalls = new StallReader(stallDir, rig.servingPid);
    for (const bytes of PROMPT_SIZES) {
      figures.push(await measure(rig, stalls, 'prompt', bytes, promptCall(rig.virtualKey, bytes)));
    }
    for (const bytes of ANSWER_SIZES) {
      figures.push(await measure(rig, stalls, 'answer', bytes, answerCall(rig.virtualKey, bytes)));
    }
  } finally {
    await rig.stop();
  }
  const budget = [...kindBudget(figures, 'prompt'), ...kindBudget(figures, 'answer')];
  return { text: render(figures), budget, figures };
}

export const bodiesEntry: BenchEntry = {
  id: 'bodies',
  title: 'stalls and CPU of large requests and answers (budget line 3)',
  run: runBodies,
};
