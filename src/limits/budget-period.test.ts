import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { budgetWindow, nextPeriodStartMs, periodStartMs } from './budget-period.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe('budget periods (calendar, UTC)', () => {
  it('starts a day at midnight, a week on Monday, a month on the first', () => {
    const wednesday = Date.UTC(2031, 0, 15, 13, 30);
    assert.equal(iso(periodStartMs('daily', wednesday)), '2031-01-15T00:00:00.000Z');
    assert.equal(iso(periodStartMs('weekly', wednesday)), '2031-01-13T00:00:00.000Z');
    assert.equal(iso(periodStartMs('monthly', wednesday)), '2031-01-01T00:00:00.000Z');
    const sunday = Date.UTC(2031, 0, 19, 23, 59, 59, 999);
    assert.equal(iso(periodStartMs('weekly', sunday)), '2031-01-13T00:00:00.000Z');
    assert.equal(iso(nextPeriodStartMs('weekly', sunday)), '2031-01-20T00:00:00.000Z');
    assert.equal(iso(nextPeriodStartMs('monthly', Date.UTC(2031, 11, 31, 23))), '2032-01-01T00:00:00.000Z');
    assert.equal(iso(nextPeriodStartMs('daily', Date.UTC(2032, 1, 28, 12))), '2032-02-29T00:00:00.000Z');
  });

  it('rolls over exactly at the boundary', () => {
    const policy = { budgetPeriod: 'daily' as const, budgetResetAtMs: null };
    const before = budgetWindow(policy, Date.UTC(2031, 0, 15, 23, 59, 59, 999));
    const at = budgetWindow(policy, Date.UTC(2031, 0, 16));
    assert.equal(iso(before.startMs), '2031-01-15T00:00:00.000Z');
    assert.equal(iso(at.startMs), '2031-01-16T00:00:00.000Z');
    assert.equal(iso(at.resetsAtMs), '2031-01-17T00:00:00.000Z');
  });

  it('starts a window at a reset inside the period, and the next period at its boundary', () => {
    const reset = Date.UTC(2031, 0, 15, 10);
    const policy = { budgetPeriod: 'daily' as const, budgetResetAtMs: reset };
    assert.equal(budgetWindow(policy, Date.UTC(2031, 0, 15, 11)).startMs, reset);
    assert.equal(iso(budgetWindow(policy, Date.UTC(2031, 0, 16, 1)).startMs), '2031-01-16T00:00:00.000Z');
    const lifetime = { budgetPeriod: null, budgetResetAtMs: reset };
    assert.deepEqual(budgetWindow(lifetime, Date.UTC(2040, 0, 1)), { startMs: reset, resetsAtMs: null });
    assert.deepEqual(budgetWindow({ budgetPeriod: null, budgetResetAtMs: null }, 0), {
      startMs: null,
      resetsAtMs: null,
    });
  });
});
