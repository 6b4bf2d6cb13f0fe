import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { topLevelMembers } from './json-members.ts';

/** Each member's value as its own text, or null when the scan refused. */
function membersOf(text: string): Record<string, string> | null {
  const bytes = Buffer.from(text);
  const members = topLevelMembers(bytes);
  if (members === null) return null;
  return Object.fromEntries(
    [...members].map(([key, [start, end]]) => [key, bytes.toString('utf8', start, end)]),
  );
}

/** JavaScript's spelling, indented, or with odd whitespace around every token. */
function spellings(value: unknown): string[] {
  return [
    JSON.stringify(value),
    JSON.stringify(value, null, 2),
    ` \r\n${JSON.stringify(value, null, '\t')}\n `,
  ];
}

const hasEscape = (key: string) => JSON.stringify(key).includes('\\');

describe('topLevelMembers', () => {
  it('finds what JSON.parse finds at the top level, each value where it is written', () => {
    const object = fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue(), { maxKeys: 6 });
    fc.assert(
      fc.property(object, (value) => {
        for (const text of spellings(value)) {
          const members = membersOf(text);
          const parsed = JSON.parse(text) as Record<string, unknown>;
          if (Object.keys(parsed).some(hasEscape)) {
            assert.equal(members, null, text);
            continue;
          }
          assert.notEqual(members, null, text);
          assert.deepEqual(Object.keys(members!).sort(), Object.keys(parsed).sort());
          for (const [key, written] of Object.entries(members!))
            assert.deepEqual(JSON.parse(written), parsed[key]);
        }
      }),
    );
  });

  it('is not fooled by keys and brackets inside strings or nested objects', () => {
    const text =
      '{"choices":[{"message":{"content":"\\"usage\\": {\\"prompt_tokens\\": 1} ]}","usage":{"prompt_tokens":7}}}],' +
      '"model":"m","usage":{"prompt_tokens":3,"completion_tokens":4}}';
    assert.deepEqual(Object.keys(membersOf(text)!), ['choices', 'model', 'usage']);
    assert.equal(membersOf(text)!.usage, '{"prompt_tokens":3,"completion_tokens":4}');
  });

  it('refuses a key written twice or with an escape, which a parser would read otherwise', () => {
    assert.equal(membersOf('{"model":"a","model":"b"}'), null);
    assert.equal(membersOf('{"mod\\u0065l":"a"}'), null);
  });

  it('refuses what is not one object of members', () => {
    for (const text of [
      '',
      '[1]',
      '"model"',
      '{"a":1',
      '{"a":1} {"b":2}',
      '{"a":1,}',
      '{"a" 1}',
      '{"a":}',
      '{"a":1]',
      '{"a":"unterminated}',
      '{"a":[1,2}',
      '{"a":1 "b":2}',
    ]) {
      assert.equal(membersOf(text), null, text);
    }
  });

  it('reads an empty object as no members', () => {
    assert.deepEqual(membersOf(' {} '), {});
  });
});
