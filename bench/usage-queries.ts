/**
 * How long `/admin/usage` takes on a million request records (docs/performance.md, Usage
 * queries): creates a scratch database on DATABASE_URL's server, migrates it, fills
 * `gateway_operations` with USAGE_ROWS operations spread over 30 days (50 keys, 20 models, 40
 * deployments; a third untagged, a third with one tag, a third with two; prompts of 100 to 1,900
 * characters, as truncated prompts are), then times each query of USAGE_QUERIES through the
 * gateway's own `queryUsage`, USAGE_REPEATS times: first over the records alone (skipped with
 * USAGE_RECORDS_PHASE=0), then after the usage-rollup job has rolled up every settled hour
 * (src/records/usage-rollup.ts, run as the job runs it, a week of hours a run). The database is
 * dropped at the end unless BENCH_KEEP_DATABASE=1.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/usage-queries.ts
 */
import { randomBytes } from 'node:crypto';
import { USAGE_ROLLUP_SETTLE_MS } from '../src/records/index.ts';
import { queryUsage, type UsageFilter } from '../src/records/queries/usage-query.ts';
import { rollUpUsage } from '../src/records/usage-rollup.ts';
import { type Database, openDatabase } from '../src/store/database.ts';
import { migrate } from '../src/store/migrate.ts';
import { queryOnce } from './postgres-query.ts';

const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const rows = Number(process.env.USAGE_ROWS ?? 1_000_000);
const repeats = Number(process.env.USAGE_REPEATS ?? 3);
const keep = process.env.BENCH_KEEP_DATABASE === '1';
const recordsPhase = process.env.USAGE_RECORDS_PHASE !== '0';

const DAY_MS = 86_400_000;
/** The newest record; the 30 days before it hold the rows. */
const END = new Date(Date.UTC(2030, 0, 31));
const ago = (days: number) => new Date(END.getTime() - days * DAY_MS);

const QUERIES: Record<string, UsageFilter> = {
  'model, all 30 days': { groupBy: 'model' },
  'key, all 30 days': { groupBy: 'key' },
  'tag, all 30 days': { groupBy: 'tag' },
  'model per day, all 30 days': { groupBy: 'model', bucket: 'day' },
  'key per day, all 30 days': { groupBy: 'key', bucket: 'day' },
  'tag per day, all 30 days': { groupBy: 'tag', bucket: 'day' },
  'deployment per hour, last 7 days': { groupBy: 'deployment', bucket: 'hour', from: ago(7), to: END },
  'model per hour, last 24 hours': { groupBy: 'model', bucket: 'hour', from: ago(1), to: END },
  'key, last 24 hours': { groupBy: 'key', from: ago(1), to: END },
};
const only = process.env.USAGE_QUERIES?.split(',').map((name) => name.trim());

/** One statement: generate_series on the server is far faster than shipping a million rows. */
const FILL = `
insert into gateway_operations
  (id, request_id, started_at, finished_at, status, http_status, error_code, operation, key_id,
   public_model, deployment_id, input_tokens, output_tokens, cached_input_tokens, cost_cents,
   latency_ms, attempt_count, prompt, tags)
select 'op_bench' || i, 'req-bench-' || i, ts, ts + interval '800 milliseconds',
       case when i % 50 = 0 then 'failure' else 'success' end,
       case when i % 50 = 0 then 502 else 200 end,
       case when i % 50 = 0 then 'upstream_error' end,
       'chat.completions',
       case when i % 51 = 0 then null else 'key_' || (i % 50) end,
       'model-' || (i % 20), 'dep_' || (i % 40),
       200 + i % 3000, 50 + i % 700, case when i % 4 = 0 then 128 * (i % 8) end,
       ((200 + i % 3000) * 0.00025 + (50 + i % 700) * 0.001)::numeric(12, 6),
       300 + i % 2000, 1,
       substr(repeat(md5(i::text) || md5((i + 7)::text), 30), 1, 100 + i % 1800),
       case i % 3 when 0 then '{}'::text[] when 1 then array['team-' || (i % 7)]
            else array['team-' || (i % 7), 'feature-' || (i % 11)] end
  from generate_series(1, $ROWS) as i,
       lateral (select $END::timestamptz - (i::double precision / $ROWS) * interval '30 days' as ts) t`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Times each query USAGE_REPEATS times and prints the median. */
async function timeQueries(database: Database, phase: string): Promise<void> {
  for (const [label, filter] of Object.entries(QUERIES)) {
    if (only !== undefined && !only.includes(label)) continue;
    const times: number[] = [];
    let groups = 0;
    for (let run = 0; run < repeats; run++) {
      const started = performance.now();
      const report = await queryUsage(database.background, filter);
      times.push(performance.now() - started);
      groups = report.data.length;
    }
    const ms = times.map((t) => Math.round(t));
    console.log(
      `${phase.padEnd(8)} ${label.padEnd(34)} median ${median(ms)} ms (runs ${ms.join(', ')}), ${groups} groups`,
    );
  }
}

async function main(): Promise<void> {
  const name = `sy_bench_usage_${randomBytes(4).toString('hex')}`;
  await queryOnce(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = openDatabase({ url: url.toString(), poolMax: 1, timeoutMs: 600_000 });
  try {
    await migrate(database.background);
    const fillStarted = performance.now();
    await queryOnce(
      url.toString(),
      FILL.replaceAll('$ROWS', String(rows)).replace('$END', `'${END.toISOString()}'`),
    );
    await queryOnce(url.toString(), 'vacuum analyze gateway_operations');
    const [size] = await queryOnce<{ table: string; indexes: string }>(
      url.toString(),
      `select pg_size_pretty(pg_table_size('gateway_operations')) as table,
              pg_size_pretty(pg_indexes_size('gateway_operations')) as indexes`,
    );
    console.log(
      `${rows} rows in ${((performance.now() - fillStarted) / 1000).toFixed(1)} s; table ${size.table}, indexes ${size.indexes} (database ${name})`,
    );
    if (recordsPhase) await timeQueries(database, 'records');
    const rollupStarted = performance.now();
    let runs = 0;
    for (;;) {
      const result = await rollUpUsage({
        db: database.background,
        settleMs: USAGE_ROLLUP_SETTLE_MS,
        retentionDays: 365,
        now: () => END,
      });
      if (result.from === undefined) break;
      runs++;
    }
    await queryOnce(url.toString(), 'vacuum analyze usage_hourly');
    const [rolled] = await queryOnce<{ rows: string }>(
      url.toString(),
      'select count(*)::text as rows from usage_hourly',
    );
    console.log(
      `rolled up in ${runs} runs, ${((performance.now() - rollupStarted) / 1000).toFixed(1)} s: ${rolled.rows} hourly rows`,
    );
    await timeQueries(database, 'rollups');
  } finally {
    await database.close();
    if (!keep) await queryOnce(serverUrl, `drop database if exists ${name} with (force)`);
  }
}

await main();
