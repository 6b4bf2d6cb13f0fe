import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelInfo } from '@pydantic/genai-prices';
import { nextPriceChangeMs } from './price-schedule.ts';

function model(prices: ModelInfo['prices']): ModelInfo {
  return { id: 'm', match: { equals: 'm' }, prices };
}

test('a fixed price never changes', () => {
  assert.equal(nextPriceChangeMs(model({ input_mtok: 1 }), Date.now()), Number.POSITIVE_INFINITY);
});

test('the next future start date is the next change; past ones are ignored', () => {
  const prices = model([
    { prices: { input_mtok: 3 } },
    { constraint: { type: 'start_date', start_date: '2025-01-01' }, prices: { input_mtok: 2 } },
    { constraint: { type: 'start_date', start_date: '2025-06-10' }, prices: { input_mtok: 1 } },
  ]);
  assert.equal(
    nextPriceChangeMs(prices, Date.parse('2025-03-01T00:00:00Z')),
    Date.parse('2025-06-10T00:00:00Z'),
  );
  assert.equal(nextPriceChangeMs(prices, Date.parse('2025-07-01T00:00:00Z')), Number.POSITIVE_INFINITY);
});

test('a time-of-day window changes at its next start or end', () => {
  const prices = model([
    { prices: { input_mtok: 1 } },
    {
      constraint: { type: 'time_of_date', start_time: '00:30:00Z', end_time: '16:30:00Z' },
      prices: { input_mtok: 2 },
    },
  ]);
  assert.equal(
    nextPriceChangeMs(prices, Date.parse('2025-03-01T02:00:00Z')),
    Date.parse('2025-03-01T16:30:00Z'),
  );
  assert.equal(
    nextPriceChangeMs(prices, Date.parse('2025-03-01T20:00:00Z')),
    Date.parse('2025-03-02T00:30:00Z'),
  );
});

test('a time of day with an offset is read in UTC', () => {
  const prices = model([
    { prices: { input_mtok: 1 } },
    {
      constraint: { type: 'time_of_date', start_time: '08:00:00+08:00', end_time: '09:00:00+08:00' },
      prices: {},
    },
  ]);
  assert.equal(
    nextPriceChangeMs(prices, Date.parse('2025-03-01T23:00:00Z')),
    Date.parse('2025-03-02T00:00:00Z'),
  );
});
