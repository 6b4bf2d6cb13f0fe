import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isoTime } from './iso-time.ts';

describe('isoTime', () => {
  it('is toISOString for times across seconds, minutes, days and years, in any order', () => {
    const times = [
      0, 1, 999, 1000, 1001, 59_999, 60_000, 86_399_999, 86_400_000, 1_767_225_599_999, 1_767_225_600_000,
      1_795_000_123_456, 1_795_000_123_007, 1_795_000_122_050, -1, -1001, 253_402_300_799_999,
    ];
    for (const ms of [...times, ...times.reverse()]) {
      assert.equal(isoTime(ms), new Date(ms).toISOString(), String(ms));
    }
  });

  it('drops a fractional millisecond as Date does', () => {
    assert.equal(isoTime(1_795_000_123_456.75), new Date(1_795_000_123_456.75).toISOString());
  });

  it('refuses a time outside the Date range', () => {
    assert.throws(() => isoTime(8.64e15 + 1000), RangeError);
  });
});
