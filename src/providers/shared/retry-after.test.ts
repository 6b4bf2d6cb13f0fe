import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { retryAfterSeconds } from './retry-after.ts';

describe('retryAfterSeconds', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  test('delay-seconds', () => assert.equal(retryAfterSeconds({ 'retry-after': '7' }, now), 7));
  test('retry-after-ms wins', () =>
    assert.equal(retryAfterSeconds({ 'retry-after-ms': '250', 'retry-after': '7' }, now), 0.25));
  test('an HTTP-date, relative to now', () =>
    assert.equal(retryAfterSeconds({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }, now), 30));
  test('a date in the past is zero', () =>
    assert.equal(retryAfterSeconds({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }, now), 0));
  test('absent, empty or garbage is undefined', () => {
    assert.equal(retryAfterSeconds({}, now), undefined);
    assert.equal(retryAfterSeconds({ 'retry-after': '' }, now), undefined);
    assert.equal(retryAfterSeconds({ 'retry-after': 'soon' }, now), undefined);
    assert.equal(retryAfterSeconds({ 'retry-after': '-3' }, now), undefined);
  });
  test('header names are matched whatever their case', () =>
    assert.equal(retryAfterSeconds({ 'Retry-After': '3' }, now), 3));
});
