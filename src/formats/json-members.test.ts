import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  bytesAt,
  chunkedMembers,
  MemberKeys,
  membersFollow,
  spanFollows,
  topLevelMembers,
  valueReplaced,
  valueReplacedParts,
  writtenExactly,
} from './json-members.ts';
import { chunksOf, cutsIn } from './test-support.ts';

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

  it('refuses a key written twice among thousands, wherever the two are, and reads thousands of distinct ones', () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => `k${i}`);
    const text = (extra: string) => `{${keys.map((key) => `"${key}":1`).join(',')},"model":"m"${extra}}`;
    assert.deepEqual(membersOf(text(''), ['model', 'k19999']), { model: '"m"', k19999: '1' });
    for (const repeated of ['k0', 'k15', 'k16', 'k17', 'k19999', 'model']) {
      assert.equal(membersOf(text(`,"${repeated}":2`), ['model']), null, repeated);
    }
    const bytes = Buffer.from(text(',"k9999":2'));
    assert.equal(chunkedMembers(chunksOf(bytes, [100, 70_001, 150_000]), MODEL), null);
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
          const joined = Buffer.concat(valueReplacedParts([bytes], span, written));
          assert.deepEqual(JSON.parse(joined.toString()), { ...JSON.parse(text), model: renamed });
          assert.deepEqual(valueReplaced(bytes, span, written), joined);
          assert.equal(spanFollows([joined], [span[0], span[0] + written.length], { bytes: written }), true);
          assert.equal(
            spanFollows([bytes], span, { bytes: written }),
            bytes.subarray(span[0], span[1]).equals(written),
          );
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
      [bytes],
      topLevelMembers(bytes, MODEL)!.get('model')!,
      Buffer.from('"public"'),
    );
    assert.equal(before.buffer, bytes.buffer);
    assert.equal(after.buffer, bytes.buffer);
    assert.equal(value.toString(), '"public"');
    assert.equal(after.byteOffset + after.length, bytes.byteOffset + bytes.length);
  });
});

/** Texts a scan must read right or refuse: objects in three spellings, strings full of escapes, and their prefixes. */
const scannedTexts = fc.oneof(
  fc
    .tuple(fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue(), { maxKeys: 6 }), fc.nat({ max: 2 }))
    .map(([value, spelling]) => spellings(value)[spelling]),
  fc
    .string({ unit: fc.constantFrom('a', '"', '\\', 'é', '𝄞', '\n', '{', ']'), maxLength: 60 })
    .map((tricky) => JSON.stringify({ [tricky.slice(0, 3)]: tricky, model: [tricky, { tricky }], n: 1 })),
  fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', ':', ',', ' ', 'a', '1'), maxLength: 30 }),
);

describe('chunkedMembers: the text as the chunks it arrived in', () => {
  it('finds what topLevelMembers finds in the joined text, wherever the chunks are cut', () => {
    fc.assert(
      fc.property(scannedTexts, cutsIn(400), fc.boolean(), (text, cuts, truncate) => {
        const whole = Buffer.from(truncate ? text.slice(0, text.length >> 1) : text);
        const keys = new MemberKeys([...parsedKeys(text), 'model', 'n']);
        const expected = topLevelMembers(whole, keys);
        assert.deepEqual(chunkedMembers(chunksOf(whole, cuts), keys), expected, `${text} cut at ${cuts}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a string whose escape is cut from what it escapes, and a key cut in two', () => {
    const whole = Buffer.from('{"ab":"x\\\\","model":"m\\"q\\\\","ke":1}');
    for (let cut = 0; cut <= whole.length; cut++) {
      for (const chunks of [chunksOf(whole, [cut]), chunksOf(whole, [cut, cut, cut + 1])]) {
        const members = chunkedMembers(chunks, new MemberKeys(['model', 'ke']));
        assert.deepEqual(members, topLevelMembers(whole, new MemberKeys(['model', 'ke'])), `cut at ${cut}`);
        assert.equal(bytesAt(chunks, ...members!.get('model')!).toString(), '"m\\"q\\\\"');
      }
    }
  });

  it('checks members against their rules as in the joined text', () => {
    const rules = {
      id: 'string',
      object: writtenExactly('"chat.completion"'),
      created: 'number',
      list: 'array',
    } as const;
    const value = fc.record({
      id: fc.oneof(fc.string(), fc.integer()),
      object: fc.constantFrom('chat.completion', 'chat.completion.chunk', 'list'),
      created: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string()),
      list: fc.oneof(fc.array(fc.nat()), fc.dictionary(fc.string(), fc.nat())),
    });
    fc.assert(
      fc.property(value, cutsIn(120), (answer, cuts) => {
        const whole = Buffer.from(JSON.stringify(answer));
        const keys = new MemberKeys(Object.keys(rules));
        const chunks = chunksOf(whole, cuts);
        const expected = membersFollow([whole], topLevelMembers(whole, keys)!, rules);
        assert.equal(membersFollow(chunks, chunkedMembers(chunks, keys)!, rules), expected);
      }),
    );
  });

  it('gives the bytes of any span, a view where one chunk holds them', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), cutsIn(64), fc.nat(), fc.nat(), (array, cuts, a, b) => {
        const whole = Buffer.from(array);
        const [start, end] = [a % (whole.length + 1), b % (whole.length + 1)].sort((x, y) => x - y);
        const chunks = chunksOf(whole, cuts);
        const bytes = bytesAt(chunks, start, end);
        assert.deepEqual(bytes, whole.subarray(start, end));
        const holder = chunks.find(
          (chunk) =>
            chunk.byteOffset - whole.byteOffset <= start &&
            chunk.byteOffset - whole.byteOffset + chunk.length >= end,
        );
        if (holder !== undefined && end > start) assert.equal(bytes.buffer, whole.buffer);
      }),
    );
  });

  it('replaces a value across chunks with views of them, the join what the joined text gives', () => {
    fc.assert(
      fc.property(scannedTexts, cutsIn(400), fc.string(), (text, cuts, renamed) => {
        const whole = Buffer.from(text);
        const span = topLevelMembers(whole, MODEL)?.get('model');
        if (span === undefined) return;
        const written = Buffer.from(JSON.stringify(renamed));
        const parts = valueReplacedParts(chunksOf(whole, cuts), span, written);
        assert.deepEqual(Buffer.concat(parts), valueReplaced(whole, span, written));
        assert.equal(parts.filter((part) => part === written).length, 1);
        for (const part of parts) if (part !== written) assert.equal(part.buffer, whole.buffer);
      }),
    );
  });
});
