import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MemberKeys, topLevelMembers, valueReplaced, valueReplacedParts, writtenAs } from './json-members.ts';

/** The keys a parser reads at the top level of `text`, or a few when it does not parse. */
function parsedKeys(text: string): string[] {
  try {
    return Object.keys(JSON.parse(text) as object);
  } catch {
    return ['a', 'b', 'model'];
  }
}

const MODEL = new MemberKeys(['model']);

/** Each member's value as its own text, or null when the scan refused. */
function membersOf(text: string, keys = parsedKeys(text)): Record<string, string> | null {
  const bytes = Buffer.from(text);
  const members = topLevelMembers(bytes, new MemberKeys(keys));
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

  it('finds only the keys asked for, and refuses any key written twice, asked for or not', () => {
    const text = '{"id":"x","model":"m","modelx":1,"mode":2,"usage":{"model":"n"}}';
    assert.deepEqual(membersOf(text, ['model']), { model: '"m"' });
    assert.deepEqual(membersOf(text, ['usage', 'model', 'absent']), { model: '"m"', usage: '{"model":"n"}' });
    // Another parser may keep the first of two: a text passed on must not hold a value the gateway did not read.
    assert.equal(membersOf('{"max_tokens":10,"model":"m","max_tokens":100000}', ['model']), null);
    assert.deepEqual(membersOf('{"é€𝄞":1,"e":2}', ['é€𝄞']), { 'é€𝄞': '1' });
  });

  it('ends long strings with escapes where a parser ends them (past the bytes scanned one by one)', () => {
    const tricky = fc.string({
      unit: fc.constantFrom('a', '"', '\\', 'é', '𝄞', '\n'),
      minLength: 20,
      maxLength: 120,
    });
    fc.assert(
      fc.property(tricky, tricky, (first, second) => {
        const text = JSON.stringify({ first, model: second, last: [first, { second }] });
        assert.deepEqual(membersOf(text), {
          first: JSON.stringify(first),
          model: JSON.stringify(second),
          last: JSON.stringify([first, { second }]),
        });
      }),
    );
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

describe('valueReplacedParts and valueReplaced', () => {
  it('makes, joined, the text a parser reads with the value replaced, the rest as written', () => {
    const key = fc.string({ unit: 'binary' }).filter((name) => !hasEscape(name));
    const object = fc.dictionary(key, fc.jsonValue(), { maxKeys: 5 });
    fc.assert(
      fc.property(object, fc.jsonValue(), fc.string({ unit: 'binary' }), (value, upstream, renamed) => {
        for (const text of spellings({ ...value, model: upstream })) {
          const bytes = Buffer.from(text);
          const span = topLevelMembers(bytes, MODEL)!.get('model')!;
          const written = Buffer.from(JSON.stringify(renamed));
          const joined = Buffer.concat(valueReplacedParts(bytes, span, written));
          assert.deepEqual(JSON.parse(joined.toString()), { ...JSON.parse(text), model: renamed });
          assert.deepEqual(valueReplaced(bytes, span, written), joined);
          assert.equal(writtenAs(joined, [span[0], span[0] + written.length], written), true);
          assert.equal(writtenAs(bytes, span, written), bytes.subarray(span[0], span[1]).equals(written));
          const kept = bytes.length - span[1];
          assert.deepEqual(joined.subarray(0, span[0]), bytes.subarray(0, span[0]));
          assert.deepEqual(joined.subarray(joined.length - kept), bytes.subarray(span[1]));
        }
      }),
    );
  });

  it('copies none of the text: the parts around the new value are views of it', () => {
    const bytes = Buffer.from(`{"model":"upstream","content":"${'é€𝄞'.repeat(1000)}"}`);
    const [before, value, after] = valueReplacedParts(
      bytes,
      topLevelMembers(bytes, MODEL)!.get('model')!,
      Buffer.from('"public"'),
    );
    assert.equal(before.buffer, bytes.buffer);
    assert.equal(after.buffer, bytes.buffer);
    assert.equal(value.toString(), '"public"');
    assert.equal(after.byteOffset + after.length, bytes.byteOffset + bytes.length);
  });
});
