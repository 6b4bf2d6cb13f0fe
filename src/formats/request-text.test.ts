import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { z } from 'zod';
import type { BodyParts } from './request-text.ts';
import {
  carryRequestText,
  requestTextWithModel as editBytes,
  rememberClientBytes,
  shareRequestText,
  upstreamJson,
} from './request-text.ts';
import { chunksOf, cutsIn } from './test-support.ts';

/** What a client could send: JavaScript's spelling, indented, or Python's ASCII-only escapes. */
function spellings(body: unknown): string[] {
  const plain = JSON.stringify(body);
  const ascii = plain.replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return [plain, JSON.stringify(body, null, 2), ascii, ` \n${JSON.stringify(body, null, '\t')}\n`];
}

const withModel = (text: string, model: string) => ({ ...JSON.parse(text), model });

/** What is sent, as text: a large edit comes as parts, the other bodies whole. */
function joined(sent: string | Buffer | BodyParts): string {
  if (typeof sent === 'string') return sent;
  return (Buffer.isBuffer(sent) ? sent : Buffer.concat(sent.parts)).toString('utf8');
}

/** The edit on the text's UTF-8 bytes, received in chunks cut at `cuts`, back as text. */
function requestTextWithModel(text: string, model: string, cuts: readonly number[] = []): string | null {
  const edited = editBytes(chunksOf(Buffer.from(text), cuts), model);
  return edited === null ? null : joined(edited);
}

describe('requestTextWithModel', () => {
  it('edits the top-level model and keeps every other byte', () => {
    const text = '{ "messages" : [{"role":"user","content":"hi"}],\n "model" :\t"public", "n": 1.50 }';
    assert.equal(
      requestTextWithModel(text, 'up "quoted"'),
      '{ "messages" : [{"role":"user","content":"hi"}],\n "model" :\t"up \\"quoted\\"", "n": 1.50 }',
    );
  });

  it('parses to the body with the model replaced, for any body and spelling', () => {
    const body = fc.record({
      model: fc.string({ unit: 'binary' }),
      messages: fc.array(fc.oneof(fc.jsonValue(), fc.string({ unit: 'binary' })), { maxLength: 4 }),
      extra: fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }),
    });
    fc.assert(
      fc.property(body, fc.string(), fc.boolean(), cutsIn(300), (value, model, modelLast, cuts) => {
        const source = modelLast
          ? { messages: value.messages, extra: value.extra, model: value.model }
          : value;
        for (const text of spellings(source)) {
          const edited = requestTextWithModel(text, model, cuts);
          assert.notEqual(edited, null, text);
          assert.deepEqual(JSON.parse(edited!), withModel(text, model));
        }
      }),
    );
  });

  it('is right or refuses whatever the top-level keys are', () => {
    const body = fc.dictionary(
      fc.oneof(fc.string(), fc.constantFrom('model', 'mod\\el', 'x')),
      fc.jsonValue(),
    );
    fc.assert(
      fc.property(body, fc.string(), cutsIn(200), (value, model, cuts) => {
        for (const text of spellings(value)) {
          const edited = requestTextWithModel(text, model, cuts);
          if (edited !== null) assert.deepEqual(JSON.parse(edited), withModel(text, model));
        }
      }),
    );
  });

  it('is not fooled by "model" inside strings, nested objects or longer keys', () => {
    const text =
      '{"messages":[{"content":"say \\"model\\": \\"x\\" \\\\","model":"nested"}],"x_model":"a","model":"public"}';
    const edited = requestTextWithModel(text, 'up');
    assert.deepEqual(JSON.parse(edited ?? ''), withModel(text, 'up'));
    assert.equal(JSON.parse(edited ?? '').messages[0].model, 'nested');
  });

  it('refuses what it cannot prove: a duplicate, an escaped key, no top-level model, a non-string', () => {
    for (const text of [
      '{"model":"a","model":"b"}',
      '{"mod\\u0065l":"a","model":"b"}',
      '{"model":"a","\\u006dodel":"b"}',
      '{"messages":[{"model":"nested"}]}',
      '{"model":{"name":"a"}}',
      '{"model":null}',
      '["model"]',
    ]) {
      assert.equal(requestTextWithModel(text, 'up'), null, text);
    }
  });

  it('is the text itself, not a copy, when it already names the model', () => {
    const text = Buffer.from('{"model":"same","messages":[]}');
    assert.equal(editBytes([text], 'same'), text);
    assert.notEqual(editBytes([text], 'other'), text);
    const large = chunksOf(
      Buffer.from(JSON.stringify({ model: 'same', text: 'x'.repeat(70_000) })),
      [20, 40_000],
    );
    assert.deepEqual(editBytes(large, 'same'), { kind: 'parts', parts: large });
  });

  it("sends a large text as views of the client's bytes around the new model, not joined", () => {
    const prompt = 'lorem ipsum '.repeat(8_192);
    const text = Buffer.from(
      JSON.stringify({ messages: [{ role: 'user', content: prompt }], model: 'public' }),
    );
    const edited = editBytes([text], 'up');
    assert.ok(edited !== null && !Buffer.isBuffer(edited), 'a 96 KiB text is sent in parts');
    assert.deepEqual(JSON.parse(joined(edited)), withModel(text.toString(), 'up'));
    const [head, model, tail] = edited.parts;
    assert.equal(head.buffer, text.buffer);
    assert.equal(tail.buffer, text.buffer);
    assert.equal(model.toString(), '"up"');
  });

  it('sends a large text received in chunks as the chunks themselves around the new model', () => {
    const text = Buffer.from(
      JSON.stringify({ messages: [{ role: 'user', content: 'é'.repeat(60_000) }], model: 'public' }),
    );
    const chunks = chunksOf(text, [1_000, 65_536, 100_000, text.length - 5]);
    const edited = editBytes(chunks, 'up');
    assert.ok(edited !== null && !Buffer.isBuffer(edited));
    assert.deepEqual(JSON.parse(joined(edited)), withModel(text.toString(), 'up'));
    for (const part of edited.parts) assert.ok(part.buffer === text.buffer || part.toString() === '"up"');
  });

  it('joins a small text received in chunks, with the new model', () => {
    const text = Buffer.from('{"model":"public","messages":[{"role":"user","content":"hi"}]}');
    const edited = editBytes(chunksOf(text, [5, 12, 30]), 'up');
    assert.ok(Buffer.isBuffer(edited));
    assert.deepEqual(JSON.parse(edited.toString()), withModel(text.toString(), 'up'));
  });
});

describe('upstreamJson', () => {
  const text = '{ "model": "public",  "messages": [ {"role": "user", "content": "hi"} ], "n": 2 }';
  const edited = text.replace('"public"', '"up"');
  /** The body as the route has it: parsed with its bytes, then copied by its schema. */
  const remembered = () => {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    rememberClientBytes(parsed, [Buffer.from(text)]);
    const body = { ...parsed };
    carryRequestText(body, parsed);
    return body;
  };
  const sent = (upstream: Record<string, unknown>, base: object) => joined(upstreamJson(upstream, base));

  it("sends the client's text with the upstream model when nothing else changed", () => {
    const base = remembered();
    assert.equal(sent({ ...base, model: 'up' }, base), edited);
    const copy = { ...base, model: 'up' };
    shareRequestText(copy, base);
    assert.equal(sent({ ...copy, stream: undefined }, copy), JSON.stringify({ ...copy, stream: undefined }));
    assert.equal(sent({ ...copy }, copy), edited);
  });

  it('serialises the body when the adapter added, dropped or changed a field', () => {
    const base = remembered();
    const { n: _n, ...dropped } = base;
    for (const upstream of [
      { ...base, model: 'up', stream_options: { include_usage: true } },
      { ...dropped, model: 'up' },
      { ...base, model: 'up', messages: [{ role: 'user', content: 'hi' }] },
    ]) {
      assert.equal(sent(upstream, base), JSON.stringify(upstream));
    }
  });

  it('serialises the body after a stage replaced, added or deleted a field in place', () => {
    const edits: Array<(body: Record<string, unknown>) => void> = [
      (body) => {
        body.messages = [{ role: 'user', content: 'expanded' }];
      },
      (body) => {
        body.store = false;
      },
      (body) => {
        delete body.n;
      },
    ];
    for (const edit of edits) {
      const base = remembered();
      edit(base);
      const upstream = { ...base, model: 'up' };
      assert.equal(sent(upstream, base), JSON.stringify(upstream));
    }
  });

  it('serialises a body without remembered text', () => {
    const body = JSON.parse(text) as Record<string, unknown>;
    const upstream = { ...body, model: 'up' };
    assert.equal(sent(upstream, body), JSON.stringify(upstream));
  });
});

describe('carryRequestText', () => {
  const text = '{"model":"m","messages":[{"role":"user","content":"hi"}],"extra":{"a":[1,2]}}';
  const parsedWithText = () => {
    const parsed = JSON.parse(text) as object;
    rememberClientBytes(parsed, [Buffer.from(text)]);
    return parsed;
  };
  const sentFor = (copy: Record<string, unknown>) => joined(upstreamJson({ ...copy, model: 'up' }, copy));

  it("goes with the schema's copy when it holds the same JSON", () => {
    const parsed = parsedWithText();
    const copy = z.looseObject({ model: z.string(), messages: z.array(z.unknown()) }).parse(parsed);
    carryRequestText(copy, parsed);
    assert.equal(sentFor(copy), text.replace('"m"', '"up"'));
  });

  it('stays behind when the schema stripped, defaulted or changed a field', () => {
    for (const schema of [
      z.object({ model: z.string(), messages: z.array(z.unknown()) }),
      z.looseObject({ model: z.string(), temperature: z.number().default(1) }),
      z.looseObject({
        model: z.string(),
        extra: z.object({ a: z.array(z.number().transform((n) => n * 2)) }),
      }),
    ]) {
      const parsed = parsedWithText();
      const copy = schema.parse(parsed) as Record<string, unknown>;
      carryRequestText(copy, parsed);
      assert.equal(sentFor(copy), JSON.stringify({ ...copy, model: 'up' }));
    }
  });

  it('goes with the copy exactly when it holds the same JSON, for any body and any change to it', () => {
    /** A JSON value made again of new objects and arrays, its strings and numbers the same values. */
    const rebuilt = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rebuilt);
      if (value === null || typeof value !== 'object') return value;
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rebuilt(item)]));
    };
    const change = fc.constantFrom('none', 'add', 'drop', 'replace', 'array-as-object');
    /** `value` with one change somewhere in it (the first container found, depth first). */
    const changed = (value: unknown, how: string): unknown => {
      if (how === 'none' || value === null || typeof value !== 'object') return value;
      if (Array.isArray(value)) {
        if (how === 'array-as-object') return { ...value };
        if (how === 'add') return [...value, 0];
        return value.length === 0 ? value : [changed(value[0], how), ...value.slice(1)];
      }
      const entries = Object.entries(value);
      if (how === 'add') return { ...value, added: 1 };
      if (entries.length === 0) return value;
      const [[key, item], ...rest] = entries;
      if (how === 'drop') return Object.fromEntries(rest);
      if (how === 'replace' && (item === null || typeof item !== 'object'))
        return { ...value, [key]: [item] };
      return { ...value, [key]: changed(item, how) };
    };
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 }), change, (fields, how) => {
        const body = { ...fields, model: 'm' };
        const text = JSON.stringify(body);
        const parsed = JSON.parse(text) as object;
        rememberClientBytes(parsed, [Buffer.from(text)]);
        const copy = { ...(changed(rebuilt(parsed), how) as Record<string, unknown>), model: 'm' };
        carryRequestText(copy, parsed);
        const sent = sentFor(copy);
        const same = JSON.stringify(rebuilt(copy)) === JSON.stringify(rebuilt(parsed));
        const serialised = JSON.stringify({ ...copy, model: 'up' });
        // The text is sent only when it holds the same JSON and its model can be edited (an escaped key cannot).
        assert.equal(sent, same ? (requestTextWithModel(text, 'up') ?? serialised) : serialised);
      }),
    );
  });

  it('walks the bodies only when the text is wanted, once: a body sent otherwise never pays for it', () => {
    const parsed = parsedWithText() as Record<string, unknown>;
    let reads = 0;
    const counted = (value: object) =>
      new Proxy(value, {
        get(target, key, receiver) {
          reads++;
          return Reflect.get(target, key, receiver);
        },
      });
    // The schema's copy has its own `extra`: only the comparison with the client's JSON reads the counted one.
    const extra = parsed.extra as object;
    parsed.extra = counted(extra);
    const copy = { ...parsed, extra: structuredClone(extra) };
    carryRequestText(copy, parsed);
    assert.equal(reads, 0);
    assert.equal(
      joined(upstreamJson({ ...copy, model: 'up', stream_options: {} }, copy)).includes('"a":[1,2]'),
      true,
    );
    assert.equal(reads, 0);
    assert.equal(sentFor(copy), text.replace('"m"', '"up"'));
    const walked = reads;
    assert.ok(walked > 0);
    assert.equal(sentFor(copy), text.replace('"m"', '"up"'));
    assert.equal(reads, walked);
  });
});
