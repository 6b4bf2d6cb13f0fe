import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { UsageFigures, UsageSeries } from '../../src/records/queries/usage-query.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import type { TestSql } from '../helpers/sql.ts';
import { admin, connect } from './support.ts';

type Figures = UsageFigures;
type Series = UsageSeries;
interface UsageReport {
  groupBy: string;
  bucket: string | null;
  from: string | null;
  to: string | null;
  totals: Series;
  data: (Series & { group: string | null })[];
  nextCursor: string | null;
}
interface ErrorBody {
  error: { code: string; param: string | null; message: string };
}

/**
 * Operations written straight into the records, at known instants in 2030 (so that bucket edges are
 * exact), in the order: started_at, status, key, model, tags, input, output, cached, cost.
 */
const OPERATIONS = [
  ['2030-01-01T10:05:00Z', 'success', 'key_1', 'm1', ['a', 'b'], 100, 10, 50, '1.5'],
  ['2030-01-01T10:59:59.999Z', 'failure', 'key_1', 'm1', ['a'], 200, 20, null, '2.25'],
  ['2030-01-01T11:00:00.000Z', 'abandoned', 'key_2', 'm2', [], 300, null, null, '0'],
  ['2030-01-02T00:00:00.000Z', 'success', null, 'm1', ['b'], 400, 40, 100, '0.1'],
  ['2030-01-02T23:59:00Z', 'cancelled', 'key_2', 'm2', [], 500, 50, null, '0.2'],
  ['2030-01-03T00:00:00.000Z', 'success', 'key_1', 'm1', [], 600, 60, null, '9'],
] as const;

const RANGE = 'from=2030-01-01T00:00:00Z&to=2030-01-03T00:00:00Z';

const figures = (
  requests: number,
  inputTokens: number,
  outputTokens: number,
  cachedInputTokens: number,
  costCents: number,
  errors: number,
): Figures => ({ requests, inputTokens, outputTokens, cachedInputTokens, costCents, errors });

describe('GET /admin/usage: totals, series, from/to (variant B)', () => {
  let gw: TestGateway;
  let sql: TestSql;
  const usage = (query: string) => admin<UsageReport>(gw, 'GET', `/admin/usage?${query}`);

  before(async () => {
    gw = await startTestGateway({ redis: false });
    sql = connect(gw);
    for (const [index, [at, status, key, model, tags, input, output, cached, cost]] of OPERATIONS.entries()) {
      await sql`insert into gateway_operations
          (id, request_id, started_at, status, operation, key_id, public_model, deployment_id, tags,
           input_tokens, output_tokens, cached_input_tokens, cost_cents)
        values (${`op_usage${index}`}, ${`req-${index}`}, ${at}, ${status}, 'chat.completions', ${key},
                ${model}, ${`dep_${model}`}, ${tags}, ${input}, ${output}, ${cached}, ${cost})`;
    }
  });
  after(async () => {
    await sql.end();
    await gw.close();
  });

  it('answers the totals and each group: calls, tokens in/out/cached, cost and errors', async () => {
    const res = await usage(`groupBy=model&${RANGE}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, {
      groupBy: 'model',
      bucket: null,
      from: '2030-01-01T00:00:00.000Z',
      to: '2030-01-03T00:00:00.000Z',
      totals: figures(5, 1500, 120, 150, 4.05, 2),
      nextCursor: null,
      data: [
        { group: 'm1', ...figures(3, 700, 70, 150, 3.85, 1) },
        { group: 'm2', ...figures(2, 800, 50, 0, 0.2, 1) },
      ],
    });
  });

  it('adds a series per hour to every group and to the totals, buckets without calls left out', async () => {
    const res = await usage(`groupBy=model&bucket=hour&${RANGE}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.bucket, 'hour');
    const [m1, m2] = res.body.data;
    assert.deepEqual(m1.series, [
      { start: '2030-01-01T10:00:00.000Z', ...figures(2, 300, 30, 50, 3.75, 1) },
      { start: '2030-01-02T00:00:00.000Z', ...figures(1, 400, 40, 100, 0.1, 0) },
    ]);
    assert.deepEqual(m2.series, [
      { start: '2030-01-01T11:00:00.000Z', ...figures(1, 300, 0, 0, 0, 1) },
      { start: '2030-01-02T23:00:00.000Z', ...figures(1, 500, 50, 0, 0.2, 0) },
    ]);
    assert.deepEqual(
      { ...m1, series: undefined },
      { group: 'm1', ...figures(3, 700, 70, 150, 3.85, 1), series: undefined },
    );
    assert.deepEqual(
      res.body.totals.series?.map((point) => [point.start, point.requests]),
      [
        ['2030-01-01T10:00:00.000Z', 2],
        ['2030-01-01T11:00:00.000Z', 1],
        ['2030-01-02T00:00:00.000Z', 1],
        ['2030-01-02T23:00:00.000Z', 1],
      ],
    );
    assert.equal(res.body.totals.requests, 5);
  });

  it('by tag per day: a call counts under each of its tags, and once in the totals', async () => {
    const res = await usage(`groupBy=tag&bucket=day&${RANGE}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const byGroup = Object.fromEntries(
      res.body.data.map((row) => [String(row.group), row.series?.map((p) => [p.start, p.requests])]),
    );
    assert.deepEqual(byGroup, {
      a: [['2030-01-01T00:00:00.000Z', 2]],
      b: [
        ['2030-01-01T00:00:00.000Z', 1],
        ['2030-01-02T00:00:00.000Z', 1],
      ],
      null: [
        ['2030-01-01T00:00:00.000Z', 1],
        ['2030-01-02T00:00:00.000Z', 1],
      ],
    });
    assert.deepEqual(
      { ...res.body.totals, series: undefined },
      { ...figures(5, 1500, 120, 150, 4.05, 2), series: undefined },
    );
    assert.deepEqual(
      res.body.totals.series?.map((point) => [point.start, point.requests, point.errors]),
      [
        ['2030-01-01T00:00:00.000Z', 3, 2],
        ['2030-01-02T00:00:00.000Z', 2, 0],
      ],
    );
  });

  it('keeps the master key and the other groupings, and bounds by from (inclusive) and to (exclusive)', async () => {
    const byKey = await usage(`groupBy=key&${RANGE}`);
    assert.deepEqual(
      byKey.body.data.map((row) => [row.group, row.requests]),
      [
        ['key_1', 2],
        ['key_2', 2],
        [null, 1],
      ],
    );
    const narrow = await usage(
      `groupBy=deployment&from=${encodeURIComponent('2030-01-01T12:59:59.999+02:00')}&to=2030-01-01T11:00:00.001Z`,
    );
    assert.equal(narrow.body.from, '2030-01-01T10:59:59.999Z');
    assert.deepEqual(
      narrow.body.data.map((row) => [row.group, row.requests]),
      [
        ['dep_m1', 1],
        ['dep_m2', 1],
      ],
    );
    const everything = await usage('groupBy=day');
    assert.equal(everything.body.totals.requests, OPERATIONS.length);
    assert.deepEqual(
      everything.body.data.map((row) => row.group),
      ['2030-01-01', '2030-01-02', '2030-01-03'],
    );
  });

  it('answers zeros and no groups for a range without calls', async () => {
    const res = await usage('bucket=day&from=2031-01-01T00:00:00Z');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.totals, { ...figures(0, 0, 0, 0, 0, 0), series: [] });
    assert.deepEqual(res.body.data, []);
  });

  it('still takes since/until, the older names of from/to', async () => {
    const older = await usage('groupBy=model&since=2030-01-01T00:00:00Z&until=2030-01-03T00:00:00Z');
    const newer = await usage(`groupBy=model&${RANGE}`);
    assert.deepEqual(older.body, newer.body);
  });

  it('refuses a bad parameter with 400 invalid_request naming it', async () => {
    for (const [query, param] of [
      ['from=yesterday', 'from'],
      ['to=2030-13-01T00:00:00Z', 'to'],
      ['from=0000-01-01T00:00:00Z', 'from'],
      ['from=2030-01-02T00:00:00Z&to=2030-01-02T00:00:00Z', 'to'],
      ['from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z', 'to'],
      ['bucket=week', 'bucket'],
      ['bucket=', 'bucket'],
      ['groupBy=planet', 'groupBy'],
      ['from=2030-01-01T00:00:00Z&since=2030-01-01T00:00:00Z', 'since'],
      ['to=2030-01-01T00:00:00Z&until=2030-01-01T00:00:00Z', 'until'],
      ['interval=hour', 'interval'],
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['cursor=bm9wZQ', 'cursor'],
    ] as const) {
      const res = await admin<ErrorBody>(gw, 'GET', `/admin/usage?${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.error.code, 'invalid_request', query);
      assert.equal(res.body.error.param, param, query);
    }
  });

  it('answers at most 1,000 groups a page by tag, the rest behind nextCursor (issue 30: 30k tags made 5.4 MB)', async () => {
    await sql`insert into gateway_operations (id, request_id, started_at, status, operation, public_model, tags)
      select 'op_tags' || n, 'req-tags' || n, '2031-05-01T00:00:00Z', 'success', 'chat.completions', 'm1',
             array['tag-' || lpad(n::text, 4, '0')]
        from generate_series(1, 1005) as n`;
    const range = 'from=2031-05-01T00:00:00Z&to=2031-05-02T00:00:00Z';
    const first = await usage(`groupBy=tag&${range}`);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.data.length, 1000);
    assert.equal(first.body.totals.requests, 1005, 'the totals count every call');
    assert.ok(first.body.nextCursor);
    const rest = await usage(`groupBy=tag&${range}&cursor=${first.body.nextCursor}`);
    assert.deepEqual(
      rest.body.data.map((row) => row.group),
      ['tag-1001', 'tag-1002', 'tag-1003', 'tag-1004', 'tag-1005'],
    );
    assert.equal(rest.body.nextCursor, null);
    const small = await usage(`groupBy=tag&${range}&limit=2`);
    assert.deepEqual(
      small.body.data.map((row) => row.group),
      ['tag-0001', 'tag-0002'],
    );
  });
});
