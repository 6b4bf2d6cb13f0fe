import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { withPublicModel } from '../pipeline/public-model.ts';
import { answerBytesWithModel, answerTextWithModel } from './answer-text.ts';

const edited = (text: string, model = 'public') => answerTextWithModel(text, JSON.parse(text), model);

describe('answerTextWithModel', () => {
  it('sets the top-level model in the text and keeps every other byte', () => {
    const text = '{"id":"c1","object":"chat.completion","model":"gpt-4o-2024-08-06","choices":[],"x":1.50}';
    assert.equal(
      edited(text, 'my "model"'),
      '{"id":"c1","object":"chat.completion","model":"my \\"model\\"","choices":[],"x":1.50}',
    );
    assert.equal(edited('{\n  "model" :\t"up",\n  "a": 1\n}'), '{\n  "model" :\t"public",\n  "a": 1\n}');
  });

  it('passes an answer without a model string as it is', () => {
    const text = '{"created":1,"data":[{"b64_json":"AAAA"}]}';
    assert.equal(edited(text), text);
  });

  it('is not fooled by "model" inside strings or in longer key names', () => {
    const text =
      '{"model":"up","choices":[{"message":{"content":"say \\"model\\": \\"up\\"","x_model":"up"}}]}';
    assert.deepEqual(JSON.parse(edited(text) ?? ''), withPublicModel(JSON.parse(text), 'public'));
  });

  it('refuses when another "model" key exists or the value is written another way', () => {
    assert.equal(edited('{"model":"up","tool":{"model":"other"}}'), null);
    assert.equal(edited('{"model":"up","model":"again"}'), null);
    assert.equal(edited('{"model":"u\\u0070"}'), null);
  });

  it('gives the JSON of the parsed answer with the public model, for any answer', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null));
    const key = fc.oneof(fc.constantFrom('model', 'id', 'usage', 'x_model'), fc.string());
    const object = fc.dictionary(key, fc.oneof(value, fc.dictionary(key, value)));
    fc.assert(
      fc.property(
        object,
        fc.string(),
        fc.string(),
        fc.integer({ min: 0, max: 2 }),
        (rest, upstream, publicModel, indent) => {
          const answer = { ...rest, model: upstream };
          const text = JSON.stringify(answer, null, indent);
          const result = answerTextWithModel(text, JSON.parse(text), publicModel);
          if (result === null) return;
          assert.deepEqual(JSON.parse(result), withPublicModel(JSON.parse(text), publicModel));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('answerBytesWithModel', () => {
  const onBytes = (bytes: Buffer, model = 'public') => {
    const text = bytes.toString('utf8');
    return answerBytesWithModel(bytes, text, JSON.parse(text), model);
  };

  it('edits the bytes as the text edit edits the text, wherever the model is and whatever precedes it', () => {
    const value = fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.constant(null));
    const key = fc.oneof(fc.constantFrom('model', 'id', 'usage', 'content'), fc.string({ unit: 'binary' }));
    const object = fc.dictionary(key, fc.oneof(value, fc.dictionary(key, value)));
    fc.assert(
      fc.property(
        object,
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary' }),
        fc.boolean(),
        (rest, upstream, publicModel, modelFirst) => {
          const answer = modelFirst ? { model: upstream, ...rest } : { ...rest, model: upstream };
          const text = JSON.stringify(answer);
          const result = onBytes(Buffer.from(text), publicModel);
          assert.equal(result?.toString('utf8') ?? null, answerTextWithModel(text, answer, publicModel));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps every other byte, the non-ASCII before the model included', () => {
    const bytes = Buffer.from('{"id":"é✓𝄞","model" : "up","x":1.50}');
    assert.equal(onBytes(bytes, 'pub')?.toString('utf8'), '{"id":"é✓𝄞","model" : "pub","x":1.50}');
    const images = Buffer.from('{"created":1,"data":[]}');
    assert.equal(onBytes(images), images);
  });

  it('refuses bytes that are not valid UTF-8', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"id":"a'),
      Buffer.from([0xff]),
      Buffer.from('","model":"up"}'),
    ]);
    assert.equal(onBytes(bytes), null);
  });
});
