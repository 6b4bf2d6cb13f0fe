import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { RESPONSES_DELTA_EVENTS, readDeltaText } from './delta-text.ts';
import { responsesStreamEventSchema } from './wire.ts';

const TEXT_DELTA = 'response.output_text.delta';
const DELTA_TYPES = [...RESPONSES_DELTA_EVENTS];

/** A text delta as OpenAI writes it, member for member. */
const OPENAI_TEXT_DELTA =
  '{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_0a1b","output_index":1,"content_index":0,"delta":"Hello","logprobs":[],"obfuscation":"x1Yz"}';

describe('readDeltaText', () => {
  test("reads each delta event's string as OpenAI writes it", () => {
    assert.equal(readDeltaText(OPENAI_TEXT_DELTA, TEXT_DELTA), 'Hello');
    assert.equal(
      readDeltaText(
        '{"type":"response.reasoning_summary_text.delta","sequence_number":7,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"**Plan","obfuscation":"ab"}',
        'response.reasoning_summary_text.delta',
      ),
      '**Plan',
    );
    assert.equal(
      readDeltaText(
        '{"type":"response.function_call_arguments.delta","sequence_number":9,"item_id":"fc_1","output_index":1,"delta":"{\\"city\\": \\"Pa","obfuscation":"q"}',
        'response.function_call_arguments.delta',
      ),
      '{"city": "Pa',
    );
    assert.equal(
      readDeltaText(
        '{"type":"response.audio.delta","sequence_number":2,"delta":"UklGRg=="}',
        'response.audio.delta',
      ),
      'UklGRg==',
    );
  });

  test('reads the members in any order, an escaped value as its string', () => {
    assert.equal(
      readDeltaText(
        '{"delta":"\\u00e9t\\u00e9 \\"q\\"\\n\\ud83d\\ude00","logprobs":[],"content_index":0,"type":"response.output_text.delta","item_id":"m","output_index":0,"sequence_number":12}',
        TEXT_DELTA,
      ),
      'été "q"\n😀',
    );
  });

  test('reads a long delta full of escapes; leaves a text past 64 KiB to the parser', () => {
    const long = 'a "quoted"\n\u0001 line\\'.repeat(2_000);
    const read = (value: string) =>
      readDeltaText(JSON.stringify({ type: TEXT_DELTA, sequence_number: 1, delta: value }), TEXT_DELTA);
    assert.equal(read(long), long);
    assert.equal(read('x'.repeat(70_000)), null);
  });

  test('leaves to the parser an event of another name', () => {
    assert.equal(readDeltaText(OPENAI_TEXT_DELTA, 'response.output_text.done'), null);
    assert.equal(readDeltaText(OPENAI_TEXT_DELTA, 'response.refusal.delta'), null);
  });

  test('leaves to the parser any text of another shape', () => {
    const edits: [string, string][] = [
      ['"logprobs":[]', '"logprobs":[{"token":"Hello","logprob":-0.1}]'],
      ['"output_index":1', '"output_index":{"n":1}'],
      ['"output_index":1', '"output_index":1.5'],
      ['"sequence_number":4', '"sequence_number":"4"'],
      ['"sequence_number":4', '"sequence_number":null'],
      ['"delta":"Hello"', '"delta":null'],
      ['"delta":"Hello",', ''],
      ['"delta":"Hello"', '"delta":"bad \\x escape"'],
      ['"delta":"Hello"', '"delta":"short \\u00e"'],
      ['"delta":"Hello"', '"delta":"raw\ttab"'],
      ['"delta":"Hello"', '"d\\u0065lta":"Hello"'],
      ['"obfuscation":"x1Yz"', '"message":"x1Yz"'],
      ['"obfuscation":"x1Yz"', '"code":null'],
      ['"obfuscation":"x1Yz"', '"response":null'],
      ['"item_id":', '"item_id": '],
      [',"item_id"', ',\n"item_id"'],
      ['"type":"response.output_text.delta"', '"type":"response.output_text.d\\u0065lta"'],
      ['"logprobs":[]', '"logprobs":[],"delta":"again"'],
      ['"logprobs":[]', '"logprobs":[],"delta":3'],
      ['"logprobs":[]', '"logprobs":[],"type":"response.output_text.delta"'],
    ];
    const others = [
      ...edits.map(([from, to]) => OPENAI_TEXT_DELTA.replace(from, to)),
      `${OPENAI_TEXT_DELTA} `,
      `${OPENAI_TEXT_DELTA}}`,
      OPENAI_TEXT_DELTA.slice(0, -1),
      '{}',
      `[${OPENAI_TEXT_DELTA}]`,
    ];
    for (const text of others) assert.equal(readDeltaText(text, TEXT_DELTA), null, text);
  });

  /** Keys the reader reads or the schema checks: the property's extra members never use them. */
  const RESERVED = new Set(['type', 'delta', 'sequence_number', 'response', 'code', 'message']);
  /** Members a delta event may carry besides its type and delta, as JSON values it may hold. */
  const extraMember = fc.tuple(
    fc.stringMatching(/^[a-z_]{1,16}$/).filter((key) => !RESERVED.has(key)),
    fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.integer({ min: -1_000_000, max: 1_000_000 }),
      fc.constantFrom(null, true, false),
      fc.constant([]),
    ),
  );
  const event = fc
    .record({
      type: fc.constantFrom(...DELTA_TYPES),
      delta: fc.string({ unit: 'binary' }),
      sequence: fc.option(fc.nat({ max: 1_000_000 }), { nil: undefined }),
      extras: fc.uniqueArray(extraMember, { selector: ([key]) => key, maxLength: 6 }),
    })
    .chain(({ type, delta, sequence, extras }) => {
      const members: [string, unknown][] = [['type', type], ['delta', delta], ...extras];
      if (sequence !== undefined) members.push(['sequence_number', sequence]);
      return fc.shuffledSubarray(members, { minLength: members.length }).map((shuffled) => ({
        type,
        delta,
        text: JSON.stringify(Object.fromEntries(shuffled)),
      }));
    });

  test('property: the text read is the delta a parser reads, for any value, member order and extra members', () => {
    fc.assert(
      fc.property(event, ({ type, delta, text }) => {
        assert.equal(readDeltaText(text, type), delta);
      }),
      { numRuns: 1000 },
    );
  });

  test('property: whatever the text, a delta read is the one a parser reads, from an event the schema accepts', () => {
    const near = fc
      .tuple(event, fc.string({ unit: 'binary', maxLength: 3 }), fc.nat(), fc.nat({ max: 3 }))
      .map(([{ type, text }, noise, at, cut]) => {
        const where = at % (text.length + 1);
        return { type, text: text.slice(0, where) + noise + text.slice(where + cut) };
      });
    fc.assert(
      fc.property(near, ({ type, text }) => {
        const read = readDeltaText(text, type);
        if (read === null) return;
        const parsed = JSON.parse(text) as { type: unknown; delta: unknown };
        assert.equal(parsed.type, type);
        assert.equal(read, parsed.delta);
        assert.ok(responsesStreamEventSchema.safeParse(parsed).success, text);
      }),
      { numRuns: 2000 },
    );
  });
});
