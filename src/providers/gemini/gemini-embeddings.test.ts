import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../errors/gateway-error.ts';
import { toBatchEmbedContentsRequest, toEmbeddingsResponse } from './gemini-embeddings.ts';

test('each input string is one EmbedContentRequest naming the model; dimensions is outputDimensionality', () => {
  assert.deepEqual(
    toBatchEmbedContentsRequest(
      { model: 'm', input: ['a', 'b'], dimensions: 256, user: 'u' },
      'gemini-embedding-001',
    ),
    {
      requests: [
        {
          model: 'models/gemini-embedding-001',
          content: { parts: [{ text: 'a' }] },
          outputDimensionality: 256,
        },
        {
          model: 'models/gemini-embedding-001',
          content: { parts: [{ text: 'b' }] },
          outputDimensionality: 256,
        },
      ],
    },
  );
  assert.deepEqual(toBatchEmbedContentsRequest({ model: 'm', input: 'one' }, 'text-embedding-004').requests, [
    { model: 'models/text-embedding-004', content: { parts: [{ text: 'one' }] } },
  ]);
});

test('token arrays and unknown parameters are refused', () => {
  const refused = (param: string) => (error: unknown) =>
    error instanceof GatewayError && error.code === 'unsupported_parameter' && error.param === param;
  assert.throws(() => toBatchEmbedContentsRequest({ model: 'm', input: [1, 2, 3] }, 'e'), refused('input'));
  assert.throws(
    () => toBatchEmbedContentsRequest({ model: 'm', input: 'x', task: 'q' }, 'e'),
    refused('task'),
  );
  assert.throws(
    () => toBatchEmbedContentsRequest({ model: 'm', input: 'x', encoding_format: 'int8' as never }, 'e'),
    refused('encoding_format'),
  );
});

test('floats by default; base64 is little-endian float32 as OpenAI encodes it', () => {
  const answer = { embeddings: [{ values: [0.5, -1, 2] }] };
  assert.deepEqual(toEmbeddingsResponse(answer, 'e', undefined).data, [
    { object: 'embedding', index: 0, embedding: [0.5, -1, 2] },
  ]);
  const encoded = toEmbeddingsResponse(answer, 'e', 'base64').data[0].embedding as string;
  const bytes = Buffer.from(encoded, 'base64');
  assert.deepEqual([...new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)], [0.5, -1, 2]);
});
