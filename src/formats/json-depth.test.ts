import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nestsDeeperThan } from './json-depth.ts';

function nested(levels: number, open: (inner: unknown) => unknown): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = open(value);
  return value;
}

describe('nestsDeeperThan', () => {
  it('counts objects and arrays as levels, the outermost as the first', () => {
    for (const open of [(inner: unknown) => [inner], (inner: unknown) => ({ a: inner })]) {
      assert.equal(nestsDeeperThan(nested(128, open), 128), false);
      assert.equal(nestsDeeperThan(nested(129, open), 128), true);
    }
    assert.equal(nestsDeeperThan('text', 0), false);
    assert.equal(nestsDeeperThan({}, 0), true);
  });

  it('finds the deep branch among shallow siblings, in objects and arrays alike', () => {
    // 1 level for the outer object, 2 for each of the 5 wraps (an object and an array).
    const deep = nested(5, (inner) => ({ x: 1, y: [inner] }));
    assert.equal(nestsDeeperThan({ a: 1, b: [2, { c: 3 }], d: deep }, 11), false);
    assert.equal(nestsDeeperThan({ a: 1, b: [2, { c: 3 }], d: deep }, 10), true);
  });

  it('walks a body nested far past the bound without overflowing the stack', () => {
    assert.equal(
      nestsDeeperThan(
        nested(1_000_000, (inner) => [inner]),
        128,
      ),
      true,
    );
  });
});
