import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OVERFLOW_LABELS, SeriesIndex } from './series-index.ts';

function index(limit: number) {
  return new SeriesIndex<string, { name: string }>(
    (seed) => ({ name: seed }),
    () => ({ name: 'overflow' }),
    limit,
  );
}

describe('series index', () => {
  it('returns the same series for the same label values', () => {
    const series = index(10);
    const first = series.get(['a', 'b'], 'first');
    assert.equal(series.get(['a', 'b'], 'second'), first);
    assert.equal(first.name, 'first');
  });

  it('tells apart values that would collide once joined into one string', () => {
    const series = index(10);
    assert.notEqual(series.get(['a|b', 'c'], 'x'), series.get(['a', 'b|c'], 'y'));
  });

  it('sends new combinations past the limit to one overflow series, kept last', () => {
    const series = index(3);
    series.get(['a'], 'a');
    series.get(['b'], 'b');
    const overflow = series.get(['c'], 'c');
    assert.equal(overflow.name, 'overflow');
    assert.equal(series.get(['d'], 'd'), overflow);
    assert.equal(series.get(['a'], 'again').name, 'a', 'known combinations keep their series');
    assert.deepEqual(
      series.all().map((s) => s.name),
      ['a', 'b', 'overflow'],
    );
  });

  it('labels the overflow series as the OpenTelemetry SDK does', () => {
    assert.deepEqual(OVERFLOW_LABELS, { 'otel.metric.overflow': true });
  });
});
