import { useMemo, useState } from 'preact/hooks';
import { ApiError, api, query } from '../api.ts';
import { Notice } from '../components/notice.tsx';
import { type ChartSeries, UsageChart } from '../components/usage-chart.tsx';
import { count, dollars } from '../format.ts';
import { useLoad } from '../hooks.ts';
import type { UsageBucket, UsageGroup, UsageReport } from '../types.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const RANGES = [
  { value: '1', text: 'Last hour', hours: 1, bucket: 'hour' },
  { value: '24', text: 'Last 24 hours', hours: 24, bucket: 'hour' },
  { value: '168', text: 'Last 7 days', hours: 168, bucket: 'hour' },
  { value: '720', text: 'Last 30 days', hours: 720, bucket: 'day' },
] as const;
const GROUPS = ['model', 'key', 'team', 'tag', 'deployment'];

const CENTS = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });
/** Cents on the cost chart's axis: a cheap model's calls cost far less than a cent. */
const cents = (value: number) => `${CENTS.format(value)}¢`;

type Figure = 'requests' | 'tokens' | 'costCents' | 'errors';
const FIGURES: { figure: Figure; title: string; format(value: number): string }[] = [
  { figure: 'requests', title: 'Calls', format: count },
  { figure: 'tokens', title: 'Tokens (input + output)', format: count },
  { figure: 'costCents', title: 'Cost (cents)', format: cents },
  { figure: 'errors', title: 'Errors', format: count },
];

function figureOf(bucket: UsageBucket, figure: Figure): number {
  return figure === 'tokens' ? bucket.inputTokens + bucket.outputTokens : bucket[figure];
}

/**
 * Every group's series on one time axis: each bucket of the range, oldest first, so the chart spans
 * the range asked for; a bucket without calls is 0.
 */
function chartData(
  groups: UsageGroup[],
  figure: Figure,
  starts: number[],
): { times: number[]; series: ChartSeries[] } {
  const series = groups.map((group) => {
    const byStart = new Map(
      (group.series ?? []).map((bucket) => [Date.parse(bucket.start), figureOf(bucket, figure)]),
    );
    return { label: group.group ?? '(none)', values: starts.map((start) => byStart.get(start) ?? 0) };
  });
  return { times: starts.map((start) => start / 1000), series };
}

/** The start of every bucket from `from` to now. */
function bucketStarts(fromMs: number, bucketMs: number, nowMs: number): number[] {
  const starts: number[] = [];
  for (let start = fromMs; start <= nowMs; start += bucketMs) starts.push(start);
  return starts;
}

export function UsagePage() {
  const [range, setRange] = useState('24');
  const [groupBy, setGroupBy] = useState('model');
  const chosen = RANGES.find((candidate) => candidate.value === range) ?? RANGES[1];
  const report = useLoad(async () => {
    // The range starts on a bucket boundary (UTC), so its first bucket is whole.
    const bucketMs = chosen.bucket === 'day' ? DAY_MS : HOUR_MS;
    const now = Date.now();
    const from = Math.floor((now - chosen.hours * HOUR_MS) / bucketMs) * bucketMs;
    const path = `/admin/usage${query({ groupBy, bucket: chosen.bucket, from: new Date(from).toISOString() })}`;
    try {
      return { usage: await api<UsageReport>('GET', path), starts: bucketStarts(from, bucketMs, now) };
    } catch (reason) {
      if (reason instanceof ApiError && reason.status === 404)
        throw new Error('Usage is served in variant B only.');
      throw reason;
    }
  }, [range, groupBy]);
  const charts = useMemo(
    () =>
      FIGURES.map((figure) => ({
        ...figure,
        ...chartData(report.data?.usage.data ?? [], figure.figure, report.data?.starts ?? []),
      })),
    [report.data],
  );
  const totals = report.data?.usage.totals;

  return (
    <>
      <form class="form grid filters" aria-label="Usage range" onSubmit={(event) => event.preventDefault()}>
        <div class="field">
          <label for="usage-range">Range</label>
          <select id="usage-range" value={range} onChange={(e) => setRange(e.currentTarget.value)}>
            {RANGES.map((option) => (
              <option key={option.value} value={option.value}>
                {option.text}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="usage-group">Group by</label>
          <select id="usage-group" value={groupBy} onChange={(e) => setGroupBy(e.currentTarget.value)}>
            {GROUPS.map((group) => (
              <option key={group} value={group}>
                {group}
              </option>
            ))}
          </select>
        </div>
        <div class="buttons">
          <button type="button" onClick={report.reload}>
            Refresh
          </button>
        </div>
      </form>
      {report.error && <Notice kind="error">{report.error}</Notice>}
      {totals && (
        <section aria-labelledby="usage-totals">
          <h2 id="usage-totals">Totals for the range</h2>
          <dl class="totals">
            <div>
              <dt>Calls</dt>
              <dd>{count(totals.requests)}</dd>
            </div>
            <div>
              <dt>Input tokens</dt>
              <dd>{count(totals.inputTokens)}</dd>
            </div>
            <div>
              <dt>Output tokens</dt>
              <dd>{count(totals.outputTokens)}</dd>
            </div>
            <div>
              <dt>Cost</dt>
              <dd>{dollars(totals.costCents)}</dd>
            </div>
            <div>
              <dt>Errors</dt>
              <dd>{count(totals.errors)}</dd>
            </div>
          </dl>
        </section>
      )}
      <div class="charts">
        {charts.map((chart) => (
          <UsageChart
            key={chart.figure}
            title={chart.title}
            times={chart.times}
            series={chart.series}
            format={chart.format}
          />
        ))}
      </div>
      <div class="table-wrap">
        <table>
          <caption>By {groupBy}</caption>
          <thead>
            <tr>
              <th scope="col">{groupBy}</th>
              <th scope="col">Calls</th>
              <th scope="col">Input tokens</th>
              <th scope="col">Output tokens</th>
              <th scope="col">Cost</th>
              <th scope="col">Errors</th>
            </tr>
          </thead>
          <tbody>
            {report.data?.usage.data.map((group) => (
              <tr key={group.group ?? '(none)'}>
                <th scope="row">{group.group ?? '(none)'}</th>
                <td>{count(group.requests)}</td>
                <td>{count(group.inputTokens)}</td>
                <td>{count(group.outputTokens)}</td>
                <td>{dollars(group.costCents)}</td>
                <td>{count(group.errors)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
