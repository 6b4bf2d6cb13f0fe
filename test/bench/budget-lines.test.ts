import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { median, spread } from '../../bench/callgrind.ts';
import { budgetLine, ratioOf, renderBudget } from '../../bench/entries.ts';
import { growthOf, marginalPerEvent } from '../../bench/streams.ts';

/** The verdicts `npm run bench` prints for issue 36's budget: a wrong one would misreport a line. */
describe('budget lines of npm run bench', () => {
  it('passes a figure at or under an upper limit and fails one above it', () => {
    assert.equal(budgetLine('ratio', 2.0, 2.0, 'x').verdict, 'pass');
    assert.equal(budgetLine('ratio', 2.01, 2.0, 'x').verdict, 'fail');
  });

  it('passes a figure at or over a lower limit and fails one under it', () => {
    assert.equal(budgetLine('throughput', 0.6, 0.6, '', 'at least').verdict, 'pass');
    assert.equal(budgetLine('throughput', 0.59, 0.6, '', 'at least').verdict, 'fail');
  });

  it('says not measured, never pass, when there is no figure', () => {
    for (const value of [null, Number.NaN]) {
      assert.deepEqual(budgetLine('stall', value, 10, ' ms'), {
        rule: 'stall',
        value: '-',
        verdict: 'not measured',
      });
    }
  });

  it('prints each line with its verdict and figure', () => {
    const lines = [budgetLine('(c) ratio', 1.964, 1.5, 'x'), budgetLine('keys', 100000, 5, '%')];
    assert.deepEqual(renderBudget(lines), ['  [fail] (c) ratio: 1.96x', '  [fail] keys: 100,000%']);
  });

  it('keeps the median of the repeats and reports their spread', () => {
    assert.equal(median([848, 1_611, 675, 1_301, 723]), 848);
    assert.equal(spread([100, 150, 120]), '50.0%');
  });

  it('regression: a ratio over a figure at or under zero is not measured, never a pass (a run printed -6.00x as one)', () => {
    assert.equal(ratioOf(1.2, -0.2), null);
    assert.equal(ratioOf(1.2, 0), null);
    assert.equal(ratioOf(Number.NaN, 1), null);
    assert.equal(ratioOf(3, 2), 1.5);
    assert.equal(budgetLine('constant', ratioOf(1.2, -0.2), 1.25, 'x').verdict, 'not measured');
    assert.equal(budgetLine('constant', Number.POSITIVE_INFINITY, 1.25, 'x').verdict, 'not measured');
  });

  it("judges a stream's constancy on the marginal cost of an event, where a call's fixed cost cancels out", () => {
    // 1,000 us per call plus 3 us per event: per event 13, 4 and 3.1 us, but each event costs 3.
    const perEvent = (fixedUs: number, eventUs: number) =>
      new Map([100, 1_000, 10_000].map((events) => [events, fixedUs / events + eventUs]));
    assert.ok(Math.abs(marginalPerEvent(perEvent(1_000, 3), 100, 1_000) - 3) < 1e-9);
    assert.ok(Math.abs(marginalPerEvent(perEvent(1_000, 3), 1_000, 10_000) - 3) < 1e-9);
    assert.ok(Math.abs((growthOf(perEvent(1_000, 3)) ?? 0) - 1) < 1e-9);
    // An event that costs more the longer the stream: 3 us up to 1,000 events, then 6 us.
    const growing = new Map([
      [100, (1_000 + 300) / 100],
      [1_000, (1_000 + 3_000) / 1_000],
      [10_000, (1_000 + 3_000 + 6 * 9_000) / 10_000],
    ]);
    assert.ok(Math.abs((growthOf(growing) ?? 0) - 2) < 1e-9);
    assert.equal(budgetLine('constant', growthOf(growing), 1.25, 'x').verdict, 'fail');
    // A slope at or under zero from 100 to 1,000 events gives no verdict.
    assert.equal(
      growthOf(
        new Map([
          [100, 40],
          [1_000, 4],
          [10_000, 3],
        ]),
      ),
      null,
    );
  });
});
