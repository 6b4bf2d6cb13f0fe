import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { TokenCountMemo } from './token-count-memo.ts';

/** A count that records the texts it was asked for. */
function countingLength() {
  const asked: string[] = [];
  return {
    asked,
    count: (text: string) => {
      asked.push(text);
      return text.length * 10;
    },
  };
}

test('a text is counted once and its count given again', () => {
  const memo = new TokenCountMemo(1000);
  const { asked, count } = countingLength();
  assert.equal(memo.countOf('hello', count), 50);
  assert.equal(memo.countOf(['hel', 'lo'].join(''), count), 50);
  assert.deepEqual(asked, ['hello']);
});

test('texts of the same length keep their own counts', () => {
  const memo = new TokenCountMemo(1000);
  const counts = new Map([
    ['abc', 1],
    ['xyz', 2],
  ]);
  const count = (text: string) => counts.get(text) ?? -1;
  assert.equal(memo.countOf('abc', count), 1);
  assert.equal(memo.countOf('xyz', count), 2);
  assert.equal(memo.countOf('abc', count), 1);
  assert.equal(memo.countOf('xyz', count), 2);
});

test('holds at most its characters: the oldest texts are dropped, a text used again is kept', () => {
  const memo = new TokenCountMemo(40);
  const { asked, count } = countingLength();
  // Generations of 20 characters: a and b fill the young one.
  memo.countOf('a'.repeat(10), count);
  memo.countOf('b'.repeat(10), count);
  // c starts a new generation; a and b are the old one.
  memo.countOf('c'.repeat(10), count);
  // a is found in the old generation and moves to the young one (with c).
  memo.countOf('a'.repeat(10), count);
  // d starts a new generation: c and a become the old one, b is dropped.
  memo.countOf('d'.repeat(10), count);
  asked.length = 0;
  memo.countOf('a'.repeat(10), count);
  memo.countOf('c'.repeat(10), count);
  memo.countOf('d'.repeat(10), count);
  assert.deepEqual(asked, []);
  memo.countOf('b'.repeat(10), count);
  assert.deepEqual(asked, ['b'.repeat(10)]);
});

test('a text longer than half the bound is counted every time, never kept', () => {
  const memo = new TokenCountMemo(10);
  const { asked, count } = countingLength();
  memo.countOf('x'.repeat(6), count);
  memo.countOf('x'.repeat(6), count);
  assert.equal(asked.length, 2);
});

test('any sequence of texts gets the counts of the texts themselves', () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ maxLength: 8 }), { maxLength: 200 }),
      fc.integer({ min: 1, max: 64 }),
      (texts, bound) => {
        const memo = new TokenCountMemo(bound);
        const count = (text: string) => text.length * 31 + (text.codePointAt(0) ?? 0);
        for (const text of texts) assert.equal(memo.countOf(text, count), count(text));
      },
    ),
  );
});

test('texts that differ in one character keep their own counts, wherever it is', () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 33, maxLength: 300 }),
      fc.array(fc.tuple(fc.nat(), fc.string({ minLength: 1, maxLength: 1 })), {
        minLength: 1,
        maxLength: 20,
      }),
      (base, edits) => {
        const memo = new TokenCountMemo(100_000);
        const texts = [
          base,
          ...edits.map(([at, char]) => {
            const i = at % base.length;
            return base.slice(0, i) + char + base.slice(i + 1);
          }),
        ];
        const count = (text: string) =>
          [...text].reduce((sum, char, i) => sum + (char.codePointAt(0) ?? 0) * (i + 1), 0);
        for (let round = 0; round < 2; round++) {
          for (const text of texts) assert.equal(memo.countOf(text, count), count(text));
        }
      },
    ),
  );
});

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Keeps the count of the first 8 Ki characters of a new 4 MiB text, as an estimate's first slice. */
function keepSliceOfLargeText(memo: TokenCountMemo, seed: number): void {
  const large = JSON.parse(JSON.stringify(`${seed}${'x'.repeat(4 * 1024 * 1024)}`)) as string;
  memo.countOf(large.slice(0, 8192), (text) => text.length);
}

test('regression: a kept slice held the whole text it was cut from (8 slices kept 34 MB)', () => {
  const memo = new TokenCountMemo(1_000_000);
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  for (let seed = 0; seed < 8; seed++) keepSliceOfLargeText(memo, seed);
  collectGarbage();
  const growth = process.memoryUsage().heapUsed - before;
  assert.ok(growth < 4 * 1024 * 1024, `the memo holds ${growth} bytes for 64 Ki characters`);
});
