import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BucketHistogram } from './bucket-histogram.ts';

describe('bucket histogram', () => {
  it('puts a value equal to a boundary in that boundary bucket, like the OpenTelemetry SDK', () => {
    const histogram = new BucketHistogram([1, 5]);
    for (const value of [0, 1, 1.5, 5, 6]) histogram.record(value);
    const point = histogram.point({});
    assert.deepEqual(point.counts, [2, 2, 1]);
    assert.equal(point.count, 5);
    assert.equal(point.sum, 13.5);
    assert.equal(point.min, 0);
    assert.equal(point.max, 6);
  });

  it('ignores NaN and negative values', () => {
    const histogram = new BucketHistogram([1]);
    histogram.record(Number.NaN);
    histogram.record(-1);
    assert.equal(histogram.count, 0);
  });

  it('hands out a snapshot that later records do not change', () => {
    const histogram = new BucketHistogram([1]);
    histogram.record(0.5);
    const point = histogram.point({});
    histogram.record(0.5);
    assert.deepEqual(point.counts, [1, 0]);
  });
});
