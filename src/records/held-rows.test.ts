import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type HeldRow, HeldRows, recordsetBytes } from './held-rows.ts';
import { recordsetJson, rowJson } from './recordset-json.ts';

const text = (row: HeldRow) => row.chunk.bytes.toString('utf8', row.start, row.end);

/** Rows of one call's size, some non-ASCII. */
const rowOf = (index: number) =>
  JSON.stringify({ id: `op_${index}`, prompt: `user: héllo 🙂 ${'x'.repeat(index % 900)}` });

describe('HeldRows', () => {
  it('gives back every row held and not released, whatever was held, released and reused around it', () => {
    const step = fc.oneof(
      fc.record({ hold: fc.string({ unit: 'grapheme', maxLength: 3000 }) }),
      fc.record({ hold: fc.constant('y'.repeat(70_000)) }),
      fc.record({ release: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 400 }), (steps) => {
        const rows = new HeldRows();
        const held: { row: HeldRow; json: string }[] = [];
        for (const step of steps) {
          if ('hold' in step) {
            const json = JSON.stringify({ prompt: step.hold });
            held.push({ row: rows.hold(json), json });
          } else if (held.length > 0) {
            const [gone] = held.splice(step.release % held.length, 1);
            rows.release(gone.row);
            rows.release(gone.row);
          }
        }
        for (const { row, json } of held) assert.equal(text(row), json);
      }),
      { numRuns: 60 },
    );
  });

  it('reuses the chunk of rows all released, and a second release of a row frees nothing more', () => {
    const rows = new HeldRows();
    const first = Array.from({ length: 1000 }, (_, index) => rows.hold(rowOf(index)));
    const chunks = new Set(first.map((row) => row.chunk));
    assert.ok(chunks.size > 1, 'the rows fill more than one chunk');
    const kept = first[0];
    for (const row of first.slice(1)) rows.release(row);
    for (const row of first.slice(1)) rows.release(row);
    const second = Array.from({ length: 1000 }, (_, index) => rows.hold(rowOf(index + 1000)));
    assert.ok(
      second.some((row) => chunks.has(row.chunk) && row.chunk !== kept.chunk),
      'a released chunk is written again',
    );
    assert.ok(
      second.every((row) => row.chunk !== kept.chunk),
      'the chunk of a row still held is not reused',
    );
    assert.equal(text(kept), rowOf(0));
    second.forEach((row, index) => {
      assert.equal(text(row), rowOf(index + 1000));
    });
  });

  it('holds a row too large to share a chunk in a chunk of its own', () => {
    const rows = new HeldRows();
    const small = rows.hold(rowOf(1));
    const large = rows.hold(JSON.stringify({ prompt: 'é'.repeat(200_000) }));
    assert.notEqual(large.chunk, small.chunk);
    assert.equal(large.byteLength, Buffer.byteLength(JSON.stringify({ prompt: 'é'.repeat(200_000) })));
    rows.release(large);
    assert.equal(text(small), rowOf(1));
  });
});

describe('recordsetBytes', () => {
  it('is the UTF-8 of recordsetJson, from held rows and strings alike', () => {
    const field = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: 'binary' }),
      fc.double(),
      fc.constant(null),
    );
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.string(), prompt: field, cost: field }), { maxLength: 20 }),
        fc.nat(),
        (list, cut) => {
          const rows = new HeldRows();
          const arrays = list.map((row) => [row.id, row.prompt, row.cost]);
          const parts = arrays.map((values, index) =>
            index < cut % (list.length + 1) ? rows.hold(rowJson(values)) : rowJson(values),
          );
          assert.deepEqual(recordsetBytes(parts), Buffer.from(recordsetJson(arrays)));
        },
      ),
    );
    assert.equal(recordsetBytes([]).toString(), '[]');
  });
});
