import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { readDeltaText } from './delta-text.ts';

const FIELDS = {
  text_delta: 'text',
  thinking_delta: 'thinking',
  input_json_delta: 'partial_json',
  signature_delta: 'signature',
} as const;
type DeltaType = keyof typeof FIELDS;

function delta(type: DeltaType, value: string, index = 0): string {
  return JSON.stringify({ type: 'content_block_delta', index, delta: { type, [FIELDS[type]]: value } });
}

describe('readDeltaText', () => {
  test('reads the value of each kind of delta; a signature is no text', () => {
    assert.equal(readDeltaText(delta('text_delta', 'Hello')), 'Hello');
    assert.equal(readDeltaText(delta('thinking_delta', 'Hmm')), 'Hmm');
    assert.equal(readDeltaText(delta('input_json_delta', '{"city": "Pa')), '{"city": "Pa');
    assert.equal(readDeltaText(delta('signature_delta', 'c2ln')), '');
  });

  test('reads an escaped value as its string', () => {
    assert.equal(
      readDeltaText(
        '{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"\\u00e9 \\"q\\"\\n"}}',
      ),
      'é "q"\n',
    );
  });

  test('leaves to the parser any text of another shape', () => {
    const others = [
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","thinking":"x"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","extra":1}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"extra":1}',
      '{"type": "content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}',
      '{"type":"content_block_delta","index":"0","delta":{"type":"text_delta","text":"x"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":"x"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}} ',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x\\"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"bad \\x escape"}}',
      '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}',
    ];
    for (const text of others) assert.equal(readDeltaText(text), null, text);
  });

  test('property: the text read is the value a parser reads, for any string of any kind', () => {
    const type = fc.constantFrom(...(Object.keys(FIELDS) as DeltaType[]));
    fc.assert(
      fc.property(type, fc.string({ unit: 'binary' }), fc.nat({ max: 1_000_000 }), (kind, value, index) => {
        const read = readDeltaText(delta(kind, value, index));
        assert.equal(read, kind === 'signature_delta' ? '' : value);
      }),
      { numRuns: 500 },
    );
  });

  test('property: whatever the text, a value read is the one a parser reads from it', () => {
    const near = fc
      .tuple(
        fc.constantFrom(...(Object.keys(FIELDS) as DeltaType[])),
        fc.string(),
        fc.string({ maxLength: 3 }),
      )
      .map(([kind, value, noise]) => {
        const text = delta(kind, value);
        const at = text.length - 3;
        return text.slice(0, at) + noise + text.slice(at);
      });
    fc.assert(
      fc.property(near, (text) => {
        const read = readDeltaText(text);
        if (read === null) return;
        const parsed = JSON.parse(text) as { delta: Record<string, string> };
        const field = FIELDS[parsed.delta.type as DeltaType];
        assert.equal(read, field === 'signature' ? '' : parsed.delta[field]);
      }),
      { numRuns: 500 },
    );
  });
});
