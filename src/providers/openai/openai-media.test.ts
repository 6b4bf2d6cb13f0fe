import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, test } from 'node:test';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { DeploymentTarget, MultipartPassThrough } from '../types.ts';
import { openAIProvider } from './openai-provider.ts';

const ops = openAIProvider.operations;
const target: DeploymentTarget = {
  id: 'dep_1',
  provider: 'openai',
  upstreamModel: 'whisper-1',
  apiKey: 'sk-upstream',
  baseUrl: 'http://upstream.test/v1',
  providerOptions: {},
};
const boundary = 'b0undary';
const form = (model: string): string =>
  `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\n${model}\r\n` +
  `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF....\r\n` +
  `--${boundary}--\r\n`;
const multipart = (model: string): MultipartPassThrough => ({
  kind: 'multipart',
  contentType: `multipart/form-data; boundary=${boundary}`,
  stream: Readable.from([Buffer.from(form(model))]),
});

describe('openai multipart operations', () => {
  for (const [operation, path] of [
    ['audio.transcriptions', '/audio/transcriptions'],
    ['images.edits', '/images/edits'],
    ['images.variations', '/images/variations'],
  ] as const) {
    test(`${operation} streams the client form to ${path} with the upstream model in it`, async () => {
      const request = ops[operation]!.buildRequest({
        target,
        body: undefined,
        stream: false,
        multipart: multipart('public-audio'),
      });
      assert.equal(request.url, `http://upstream.test/v1${path}`);
      assert.equal(request.headers['content-type'], `multipart/form-data; boundary=${boundary}`);
      assert.equal(request.headers.authorization, 'Bearer sk-upstream');
      const body = request.body as MultipartPassThrough;
      assert.equal(body.kind, 'multipart');
      assert.equal(await text(body.stream), form('whisper-1'));
    });
  }

  test('a multipart operation without a multipart body is a defect, not a client error', () => {
    assert.throws(
      () => ops['audio.transcriptions']!.buildRequest({ target, body: undefined, stream: false }),
      (e: unknown) => e instanceof GatewayError && e.code === 'internal_error',
    );
  });

  test('transcription: JSON with token usage, duration usage, verbose_json duration, or plain text', () => {
    const audio = ops['audio.transcriptions']!;
    const tokens = audio.parseResponse(
      { text: 'hi', usage: { type: 'tokens', input_tokens: 14, output_tokens: 45, total_tokens: 59 } },
      target,
    );
    assert.deepEqual(audio.usageOf(tokens), { inputTokens: 14, outputTokens: 45 });
    const duration = audio.parseResponse({ text: 'hi', usage: { type: 'duration', seconds: 9 } }, target);
    assert.deepEqual(audio.usageOf(duration), { inputTokens: 0, outputTokens: 0, audioSeconds: 9 });
    const verbose = audio.parseResponse(
      { task: 'transcribe', language: 'english', duration: 8.47, text: 'hi', segments: [] },
      target,
    );
    assert.deepEqual(audio.usageOf(verbose), { inputTokens: 0, outputTokens: 0, audioSeconds: 8.47 });
    const plain = audio.parseResponse('hello world\n', target);
    assert.equal(plain, 'hello world\n');
    assert.equal(audio.usageOf(plain), null);
  });

  test('images: count of images, plus tokens for gpt-image', () => {
    const edits = ops['images.edits']!;
    const dalle = edits.parseResponse(
      { created: 1, data: [{ url: 'https://x/1.png' }, { url: 'https://x/2.png' }] },
      target,
    );
    assert.deepEqual(edits.usageOf(dalle), { inputTokens: 0, outputTokens: 0, images: 2 });
    const gptImage = edits.parseResponse(
      {
        created: 1,
        data: [{ b64_json: 'AA==' }],
        usage: {
          input_tokens: 50,
          output_tokens: 4160,
          total_tokens: 4210,
          input_tokens_details: { text_tokens: 10, image_tokens: 40 },
        },
      },
      target,
    );
    assert.deepEqual(edits.usageOf(gptImage), { inputTokens: 50, outputTokens: 4160, images: 1 });
    assert.throws(() => edits.parseResponse('<html>', target), GatewayError);
  });
});

describe('openai JSON media operations', () => {
  test('images.generations posts JSON with the upstream model', () => {
    const request = ops['images.generations']!.buildRequest({
      target: { ...target, upstreamModel: 'gpt-image-1' },
      body: { model: 'public-image', prompt: 'a cat', n: 2 },
      stream: false,
    });
    assert.equal(request.url, 'http://upstream.test/v1/images/generations');
    assert.deepEqual(JSON.parse(request.body as string), { model: 'gpt-image-1', prompt: 'a cat', n: 2 });
  });

  test('embeddings: input tokens only', () => {
    const embeddings = ops.embeddings!;
    const request = embeddings.buildRequest({
      target,
      body: { model: 'public', input: ['a', 'b'] },
      stream: false,
    });
    assert.equal(request.url, 'http://upstream.test/v1/embeddings');
    const answer = embeddings.parseResponse(
      {
        object: 'list',
        data: [
          { object: 'embedding', index: 0, embedding: [0.1, -0.2] },
          { object: 'embedding', index: 1, embedding: 'AAAA' },
        ],
        model: 'text-embedding-3-small',
        usage: { prompt_tokens: 8, total_tokens: 8 },
      },
      target,
    );
    assert.deepEqual(embeddings.usageOf(answer), { inputTokens: 8, outputTokens: 0 });
  });
});
