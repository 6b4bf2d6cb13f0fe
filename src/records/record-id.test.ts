import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordId } from './record-id.ts';

describe('recordId', () => {
  it('is the prefix, 16 hex of the process part and an 8-hex counter', () => {
    assert.match(recordId('op'), /^op_[0-9a-f]{24}$/);
    assert.match(recordId('log'), /^log_[0-9a-f]{24}$/);
  });

  it('is unique and sorts in the order the ids were made within a process', () => {
    const ids = Array.from({ length: 10_000 }, () => recordId('op'));
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual([...ids].sort(), ids);
  });

  it('shares the random part within a process', () => {
    const [a, b] = [recordId('smp'), recordId('smp')];
    assert.equal(a.slice(0, -8), b.slice(0, -8));
    assert.notEqual(a, b);
  });
});
