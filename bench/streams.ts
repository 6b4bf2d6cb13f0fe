/**
 * `npm run bench -- --only streams`: budget line 2 of issue 36, the CPU the gateway adds per
 * streamed event over the bare proxy (bench/passthrough-proxy.ts), at 100, 1,000 and 10,000
 * content events per answer, on a native route (OpenAI Chat in, an openai-compatible deployment)
 * and a translated one (Anthropic Messages in, `/v1/messages`, to the same OpenAI-format fake).
 *
 * Sequential calls, one at a time; the figure is the serving process's user + system CPU over a
 * window of calls (/proc), per call, divided by the answer's events. A window holds about
 * BENCH_STREAM_EVENTS events (300,000), so a 10 ms clock tick is well under 1% of it; repeated
 * BENCH_STREAM_REPEATS times (3), the median kept. At 100 events a call's fixed cost (auth,
 * limits, records) is spread over few events, so that figure is shown but only 1,000 and 10,000
 * are held to the budget. "Constant" is judged on the marginal cost of an event, the slope of the
 * route's CPU per call against its events (`marginalPerEvent`): from 1,000 to 10,000 events at most
 * 1.25x what it is from 100 to 1,000 (docs/performance.md, Streams).
 */
import { Pool } from 'undici';
import { median } from './callgrind.ts';
import type { BudgetCheck } from './derived.ts';
import { type BenchEntry, budgetLine, type EntryReport, ratioOf } from './entries.ts';
import { cpuPerCall, type EntryRig, sizedBase, startEntryRig } from './entry-rig.ts';
import { FAKE_MODEL } from './fake-answers.ts';
import { machineInfo } from './machine.ts';
import { type BenchRequest, chatRequest, messagesRequest } from './requests.ts';
import { startPassthroughProxy } from './upstreams.ts';

const SIZES = [100, 1_000, 10_000] as const;
/** The ranges of the marginal cost per event: the "constant" line compares the second with the first. */
const MARGINS = [
  [100, 1_000],
  [1_000, 10_000],
] as const;
/** Microseconds of added CPU per event (issue 36, line 2). */
const BUDGET = { native: 2, translated: 4, growth: 1.25 };
const ROUTES = ['proxy', 'native', 'translated'] as const;
type Route = (typeof ROUTES)[number];

/** CPU microseconds per event, by route and size: one per repeat. */
type Samples = Record<Route, Map<number, number[]>>;

function streamOptions() {
  return {
    events: Number(process.env.BENCH_STREAM_EVENTS ?? 300_000),
    repeats: Number(process.env.BENCH_STREAM_REPEATS ?? 3),
  };
}

const modelOf = (events: number) => `bench-stream-${events}`;

interface Target {
  origin: string;
  pid: number;
  call(events: number): BenchRequest;
}

function targets(rig: EntryRig, proxyOrigin: string, proxyPid: number): Record<Route, Target> {
  const gateway = { origin: rig.gateway.origin, pid: rig.servingPid };
  return {
    proxy: {
      origin: proxyOrigin,
      pid: proxyPid,
      call: (events) => ({
        ...chatRequest(FAKE_MODEL, 'sk-bench-upstream', true),
        path: `${new URL(sizedBase(rig.fake, events)).pathname}/v1/chat/completions`,
      }),
    },
    native: { ...gateway, call: (events) => chatRequest(modelOf(events), rig.virtualKey, true) },
    translated: { ...gateway, call: (events) => messagesRequest(modelOf(events), rig.virtualKey, true) },
  };
}

/** Microseconds of the target's CPU per event of an answer of `events`, one window of calls. */
async function perEvent(target: Target, events: number, windowEvents: number): Promise<number> {
  const pool = new Pool(target.origin, { connections: 1 });
  try {
    const count = Math.max(5, Math.round(windowEvents / events));
    const call = target.call(events);
    await cpuPerCall(pool, call, target.pid, Math.max(2, Math.round(count / 5)));
    return ((await cpuPerCall(pool, call, target.pid, count)) / events) * 1e6;
  } finally {
    await pool.close();
  }
}

async function sample(all: Record<Route, Target>): Promise<Samples> {
  const { events: windowEvents, repeats } = streamOptions();
  const samples = Object.fromEntries(ROUTES.map((r) => [r, new Map<number, number[]>()])) as Samples;
  for (let i = 0; i < repeats; i++) {
    for (const events of SIZES) {
      for (const route of ROUTES) {
        const value = await perEvent(all[route], events, windowEvents);
        const list = samples[route].get(events) ?? [];
        list.push(value);
        samples[route].set(events, list);
        process.stderr.write(`[streams] ${route} ${events} events: ${value.toFixed(2)} us/event\n`);
      }
    }
  }
  return samples;
}

/** The gateway's median per-event CPU minus the proxy's, by size. */
function added(samples: Samples, route: Exclude<Route, 'proxy'>, events: number): number {
  return median(samples[route].get(events)!) - median(samples.proxy.get(events)!);
}

function render(samples: Samples): string {
  const machine = machineInfo();
  const us = (value: number) => value.toFixed(2);
  const rows = SIZES.map((events) => {
    const proxy = median(samples.proxy.get(events)!);
    const cells = (['native', 'translated'] as const).map(
      (route) => `${us(median(samples[route].get(events)!))} | ${us(added(samples, route, events))}`,
    );
    return `| ${events.toLocaleString('en')} | ${us(proxy)} | ${cells.join(' | ')} |`;
  });
  return [
    'CPU per streamed event of the serving process, microseconds (median of the repeats; sequential calls)',
    `machine: ${machine.cores} cores, ${machine.cpuModel}, Node ${machine.node}, commit ${machine.commit}`,
    '| events per answer | proxy | native | native added | translated | translated added |',
    '|---|---|---|---|---|---|',
    ...rows,
    '(at 100 events the per-call cost is spread over few events: shown, not held to the budget)',
    '',
    'Marginal CPU of one more event, microseconds (the slope of CPU per call against events)',
    '| events | proxy | native | native added | translated | translated added |',
    '|---|---|---|---|---|---|',
    ...MARGINS.map(([from, to]) => {
      const slope = (route: Route) => marginalPerEvent(medians(samples, route), from, to);
      const cells = (['native', 'translated'] as const).map(
        (route) => `${us(slope(route))} | ${us(slope(route) - slope('proxy'))}`,
      );
      return `| ${from.toLocaleString('en')}-${to.toLocaleString('en')} | ${us(slope('proxy'))} | ${cells.join(' | ')} |`;
    }),
  ].join('\n');
}

/**
 * Microseconds of CPU one more event costs the route, from `from` to `to` events per answer: the
 * difference of its CPU per call at the two sizes over the difference of their events. A call's
 * fixed cost cancels out, which in the per-event figure is spread thinner the longer the answer
 * (the proxy's fell tenfold from 1,000 to 10,000 events on a fixed cost per call).
 */
export function marginalPerEvent(perEventUs: ReadonlyMap<number, number>, from: number, to: number): number {
  const perCall = (events: number) => (perEventUs.get(events) ?? Number.NaN) * events;
  return (perCall(to) - perCall(from)) / (to - from);
}

/** The medians of the repeats, by size, for one route. */
function medians(samples: Samples, route: Route): Map<number, number> {
  return new Map(SIZES.map((events) => [events, median(samples[route].get(events)!)]));
}

/**
 * The "constant" figure of a route: its marginal cost per event from 1,000 to 10,000 events over
 * that from 100 to 1,000; null (not measured) when the lower one is not positive.
 */
export function growthOf(perEventUs: ReadonlyMap<number, number>): number | null {
  return ratioOf(marginalPerEvent(perEventUs, 1_000, 10_000), marginalPerEvent(perEventUs, 100, 1_000));
}

function budget(samples: Samples): BudgetCheck[] {
  const worst = (route: 'native' | 'translated') =>
    Math.max(added(samples, route, 1_000), added(samples, route, 10_000));
  const lines = (route: 'native' | 'translated') => [
    budgetLine(
      `streams, ${route}: added CPU per event over the proxy (1k, 10k events)`,
      worst(route),
      BUDGET[route],
      ' us',
    ),
    budgetLine(
      `streams, ${route}: marginal CPU per event, 1k-10k over 100-1k (constant)`,
      growthOf(medians(samples, route)),
      BUDGET.growth,
      'x',
    ),
  ];
  return [...lines('native'), ...lines('translated')];
}

async function runStreams(resultsDir: string): Promise<EntryReport> {
  const rig = await startEntryRig(resultsDir, {
    id: 'streams',
    models: new Map(SIZES.map((events) => [modelOf(events), events])),
  });
  try {
    const proxy = await startPassthroughProxy(rig.fake.origin, null);
    try {
      const samples = await sample(targets(rig, proxy.origin, proxy.child.pid));
      const figures = Object.fromEntries(ROUTES.map((route) => [route, Object.fromEntries(samples[route])]));
      return { text: render(samples), budget: budget(samples), figures };
    } finally {
      await proxy.child.stop();
    }
  } finally {
    await rig.stop();
  }
}

export const streamsEntry: BenchEntry = {
  id: 'streams',
  title: 'CPU per streamed event over the bare proxy (budget line 2)',
  run: runStreams,
};
