import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatResetDuration } from './duration-format.ts';

describe('formatResetDuration (Go time.Duration strings, as OpenAI sends them)', () => {
  const cases: [number, string][] = [
    [0, '0s'],
    [-5, '0s'],
    [1, '1ms'],
    [0.2, '1ms'],
    [999, '999ms'],
    [1000, '1s'],
    [1500, '1.5s'],
    [1001, '1.001s'],
    [1010, '1.01s'],
    [59_999, '59.999s'],
    [60_000, '1m0s'],
    [360_000, '6m0s'],
    [61_500, '1m1.5s'],
    [3_600_000, '1h0m0s'],
    [3_723_250, '1h2m3.25s'],
  ];
  for (const [ms, expected] of cases) {
    it(`${ms} ms -> ${expected}`, () => assert.equal(formatResetDuration(ms), expected));
  }
});
