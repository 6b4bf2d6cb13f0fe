import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { median, spread } from '../../bench/callgrind.ts';
import { budgetLine, renderBudget } from '../../bench/entries.ts';

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
});
