/** The run's report: tables on stdout, every figure in bench/results/<date>.json. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BudgetCheck, DerivedFigures } from './derived.ts';
import { renderBudget } from './entries.ts';
import type { MachineInfo } from './machine.ts';
import type { ScenarioFigures } from './measure.ts';
import type { ProfileSummary } from './profile.ts';
import type { ScenarioResult } from './scenarios.ts';

export interface BenchReport {
  schema: 1;
  date: string;
  machine: MachineInfo;
  settings: Record<string, unknown>;
  scenarios: ScenarioResult[];
  derived: Record<string, DerivedFigures>;
  budget: BudgetCheck[];
  notes: string[];
  profile: ProfileSummary | null;
}

type Cell = string | number | null | undefined;

function cell(value: Cell, digits = 2): string {
  if (value === null || value === undefined || (typeof value === 'number' && Number.isNaN(value))) return '-';
  return typeof value === 'number' ? value.toFixed(digits) : value;
}

function table(header: string[], rows: Cell[][]): string {
  const text = rows.map((row) => row.map((value) => (typeof value === 'string' ? value : cell(value))));
  const widths = header.map((title, i) => Math.max(title.length, ...text.map((row) => row[i].length)));
  const line = (row: string[]) => row.map((value, i) => value.padEnd(widths[i])).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...text.map(line)].join('\n');
}

function percent(share: number | null | undefined): string {
  return share === null || share === undefined ? '-' : `${Math.round(share * 100)}%`;
}

function health(result: ScenarioResult & { status: 'measured' }): string {
  const f = result.figures;
  const bad =
    f.saturation.non2xx +
    f.saturation.errors +
    (f.rate?.non2xx ?? 0) +
    (f.rate?.errors ?? 0) +
    (f.sequential?.non2xx ?? 0) +
    (f.sequential?.errors ?? 0);
  return bad === 0 ? 'ok' : `${bad} failed calls`;
}

/** `128 (64: 10521, 256: 9137)`: the saturating connection count, then the calls/s at the others tried. */
function sweepCell(figures: ScenarioFigures): string {
  const others = figures.sweep.filter((point) => point.connections !== figures.connections);
  if (others.length === 0) return String(figures.connections);
  return `${figures.connections} (${others.map((point) => `${point.connections}: ${point.rps}`).join(', ')})`;
}

/** `0.031/0.052`: Redis's and Postgres's CPU s per 1k calls, `-` for one not local. */
function dependencyCpu(result: ScenarioResult & { status: 'measured' }): string {
  const deps = result.figures.dependencyCpuSecondsPer1000;
  return deps === null ? '-' : `${cell(deps.redis, 3)}/${cell(deps.postgres, 3)}`;
}

export function renderReport(report: BenchReport): string {
  const measured = report.scenarios.filter(
    (r): r is ScenarioResult & { status: 'measured' } => r.status === 'measured',
  );
  const throughput = table(
    [
      'id',
      'scenario',
      'calls/s',
      'conns',
      'vs node limit',
      'CPU s/1k calls',
      'redis/pg CPU s/1k',
      'load cores busy',
      'RSS MB med/max',
      'at rate',
      'calls',
    ],
    measured.map((r) => [
      r.spec.id,
      r.spec.title,
      String(r.figures.saturation.rps),
      sweepCell(r.figures),
      percent(report.derived[r.spec.id]?.throughputVsNodeLimit),
      cell(r.figures.cpuSecondsPer1000, 3),
      dependencyCpu(r),
      percent(r.figures.loadCoresBusy),
      `${cell(r.figures.rssMb.median, 0)}/${cell(r.figures.rssMb.max, 0)}`,
      cell(r.figures.rateRssMb?.median, 0),
      health(r),
    ]),
  );
  const latency = table(
    ['id', 'c=1 p50', 'p90', 'p99', '+p50', '+p99', 'TTFB p50', '+TTFB', 'rate p50', 'p90', 'p99', 'rate/s'],
    measured
      .filter((r) => r.figures.sequential !== null || r.figures.rate !== null)
      .map((r) => {
        const s = r.figures.sequential;
        const q = r.figures.rate;
        const d = report.derived[r.spec.id];
        return [
          r.spec.id,
          s?.p50Ms,
          s?.p90Ms,
          s?.p99Ms,
          d?.addedP50Ms,
          d?.addedP99Ms,
          s?.ttfb?.p50Ms,
          d?.addedTtfbP50Ms,
          q?.p50Ms,
          q?.p90Ms,
          q?.p99Ms,
          q?.achievedRate === null || q === null ? '-' : String(q.achievedRate),
        ];
      }),
  );
  const missing = report.scenarios
    .filter((r) => r.status !== 'measured')
    .map((r) => `  (${r.spec.id}) ${r.spec.title}: ${r.status}: ${'reason' in r ? r.reason : ''}`);
  const lines = [
    `Switchyard bench ${report.date}`,
    `${report.machine.cpuModel}, ${report.machine.cores} cores, ${report.machine.memoryGb} GB, Node ${report.machine.node}, load average ${report.machine.loadAverage.join(' ')}`,
    ...Object.entries(report.settings).map(
      ([name, value]) => `  ${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
    ),
    '',
    `Throughput at saturation (the best of ${String(report.settings.connections)} connections, tried in turn until one serves fewer calls/s; conns: the best count, with the calls/s of the others), cost of the server under test and of the local Redis/Postgres, busy share of the load cores`,
    throughput,
    '',
    'Latency in ms: concurrency 1 (+ = added over the same call direct to the fake) and at a fixed rate',
    latency,
  ];
  if (missing.length > 0) lines.push('', 'Not measured:', ...missing);
  lines.push('', 'Budget (docs/performance.md):', ...renderBudget(report.budget));
  if (report.notes.length > 0) lines.push('', 'Notes:', ...report.notes.map((note) => `  ${note}`));
  if (report.profile !== null) lines.push('', renderProfile(report.profile));
  return lines.join('\n');
}

export function renderProfile(profile: ProfileSummary): string {
  return [
    `CPU profile of scenario (${profile.scenario}) in the worker, ${profile.busyMs} ms busy in a ${profile.windowMs} ms load window, ${profile.calls} calls, ${profile.cpuMsPer1kCalls} ms of worker CPU per 1k calls (${profile.file})`,
    table(
      ['self %', 'self ms', 'function', 'where'],
      profile.top.map((f) => [cell(f.selfPercent, 1), cell(f.selfMs, 0), f.name, f.location]),
    ),
    '',
    'Switchyard functions by inclusive time (themselves and what they call):',
    table(
      ['total %', 'total ms', 'function', 'where'],
      profile.srcInclusive.map((f) => [cell(f.totalPercent, 1), cell(f.totalMs, 0), f.name, f.location]),
    ),
    '',
    'Self time by origin:',
    table(
      ['self %', 'origin'],
      profile.byOrigin.slice(0, 20).map((o) => [cell(o.selfPercent, 1), o.origin]),
    ),
  ].join('\n');
}

const BIOME = fileURLToPath(new URL('../node_modules/.bin/biome', import.meta.url));

/**
 * Writes the JSON, then formats it with the project's Biome when installed: `npm run lint` checks
 * every `*.json` under the tree, git-ignored results included.
 */
export function writeReport(file: string, report: object): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  if (existsSync(BIOME)) spawnSync(BIOME, ['format', '--write', file], { stdio: 'ignore' });
}
