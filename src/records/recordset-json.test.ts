import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isoTime } from '../diagnostics/iso-time.ts';
import { recordsetJson, rowJson, valuesReader } from './recordset-json.ts';

describe('recordsetJson', () => {
  it('is the JSON of the rows, times as ISO text', () => {
    const rows = [{ id: 'op_1', started_at: isoTime(0), prompt: 'user: héllo 🙂\n', cost: 0.5 }];
    assert.equal(recordsetJson(rows), JSON.stringify(rows));
    assert.deepEqual(JSON.parse(recordsetJson(rows)), [
      { id: 'op_1', started_at: '1970-01-01T00:00:00.000Z', prompt: 'user: héllo 🙂\n', cost: 0.5 },
    ]);
  });

  it('removes NUL and replaces a lone surrogate, which Postgres refuses in JSON text', () => {
    const rows = [{ prompt: 'a\u0000b \ud800 c', detail: { message: 'x\udc00' } }];
    const text = recordsetJson(rows);
    assert.ok(!text.includes('\\u0000') && !/\\ud[89a-f]/.test(text), text);
    assert.deepEqual(JSON.parse(text), [{ prompt: 'ab \ufffd c', detail: { message: 'x\ufffd' } }]);
  });

  it('keeps other escapes and a literal backslash-u as they are', () => {
    const rows = [{ prompt: 'esc \u001b and \\u0041' }];
    assert.deepEqual(JSON.parse(recordsetJson(rows)), rows);
  });
});

describe('rowJson and valuesReader', () => {
  it("reads a row's values in the columns' order, whatever order its keys were made in", () => {
    const read = valuesReader<Record<string, unknown>>(['id', 'prompt', 'cost', 'tags', 'extensions']);
    const row = { prompt: 'user: hi', id: 'op_1', tags: ['a'], cost: 0.5, extensions: null };
    assert.equal(rowJson(read(row)), '["op_1","user: hi",0.5,["a"],null]');
  });

  it('refuses a column name that is not a plain identifier', () => {
    assert.throws(
      () => valuesReader<Record<string, unknown>>(['id', 'x]; process.exit(1); [']),
      /not a plain column name/,
    );
  });

  it('removes NUL and replaces a lone surrogate as recordsetJson does', () => {
    const text = rowJson(['a\u0000b \ud800 c', { message: 'x\udc00' }]);
    assert.deepEqual(JSON.parse(text), ['ab \ufffd c', { message: 'x\ufffd' }]);
  });
});
