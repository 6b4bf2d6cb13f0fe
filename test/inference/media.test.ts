import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { toFile } from 'openai';
import type { MultipartBody } from '../fakes/fake-server.ts';
import { FAKE_PNG_BASE64 } from '../fakes/openai-fake-media.ts';
import { lastJson, openaiClient, post, rejection, startUpstreams, type Upstreams } from './support.ts';

const PNG = Buffer.from(FAKE_PNG_BASE64, 'base64');

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

describe('embeddings, images and transcriptions with the official openai client', () => {
  let up: Upstreams;
  let client: OpenAI;
  before(async () => {
    up = await startUpstreams();
    client = openaiClient(up.gw, up.key);
  });
  after(() => up?.close());

  /** The multipart body the OpenAI fake received last. */
  function lastForm(): MultipartBody {
    const body = up.openai.lastRequest?.body as MultipartBody | undefined;
    assert.equal(body?.kind, 'multipart');
    return body;
  }

  describe('POST /v1/embeddings', () => {
    it('embeds a batch through openai, naming the public model', async () => {
      const answer = await client.embeddings.create({ model: 'embed', input: ['one', 'two words'] });
      assert.equal(answer.model, 'embed');
      assert.equal(answer.data.length, 2);
      assert.equal(answer.data[1].index, 1);
      assert.equal(answer.data[0].embedding.length, 8);
      assert.equal(answer.usage.prompt_tokens, 3);
      assert.equal(lastJson(up.openai).model, 'text-embedding-3-small');
    });

    it('embeds through gemini (batchEmbedContents)', async () => {
      const answer = await client.embeddings.create({ model: 'gemini', input: 'one', dimensions: 4 });
      assert.equal(answer.model, 'gemini');
      assert.equal(answer.data[0].embedding.length, 4);
    });
  });

  describe('POST /v1/images/generations', () => {
    it('generates images as base64 and as URLs', async () => {
      const b64 = await client.images.generate({ model: 'image', prompt: 'a red square', n: 2 });
      assert.equal(b64.data?.length, 2);
      assert.equal(b64.data?.[0].b64_json, FAKE_PNG_BASE64);
      const urls = await client.images.generate({ model: 'dalle', prompt: 'a cat', response_format: 'url' });
      assert.match(urls.data?.[0].url ?? '', /^https:\/\/images\.fake\.invalid\//);
      assert.equal(lastJson(up.openai).model, 'dall-e-2');
    });
  });

  describe('POST /v1/images/edits (multipart)', () => {
    it('edits an image, the upstream receiving its model and the whole file', async () => {
      const answer = await client.images.edit({
        model: 'image',
        image: await toFile(PNG, 'square.png', { type: 'image/png' }),
        prompt: 'make it blue',
      });
      assert.equal(answer.data?.[0].revised_prompt, `make it blue (edited square.png, ${PNG.length} bytes)`);
      const form = lastForm();
      assert.equal(form.fields.model, 'gpt-image-1');
      assert.equal(form.fields.prompt, 'make it blue');
      assert.equal(form.files[0].sha256, sha256(PNG));
    });

    it('reads the model after the file', async () => {
      const image = await toFile(PNG, 'late.png', { type: 'image/png' });
      await client.images.edit({ image, prompt: 'late model', model: 'image' });
      assert.equal(lastForm().fields.model, 'gpt-image-1');
      assert.equal(lastForm().files[0].filename, 'late.png');
    });
  });

  describe('POST /v1/images/variations (multipart)', () => {
    it('varies an image through dall-e-2', async () => {
      const answer = await client.images.createVariation({
        model: 'dalle',
        image: await toFile(PNG, 'v.png', { type: 'image/png' }),
        n: 2,
        response_format: 'url',
      });
      assert.equal(answer.data?.length, 2);
      const form = lastForm();
      assert.equal(form.fields.model, 'dall-e-2');
      assert.equal(form.fields.n, '2');
      assert.equal(form.files[0].sha256, sha256(PNG));
    });
  });

  describe('POST /v1/audio/transcriptions (multipart)', () => {
    const audio = randomBytes(3 * 1024 * 1024 + 17);

    it('passes the whole file and the upstream model, model before the file', async () => {
      const answer = await client.audio.transcriptions.create({
        model: 'whisper',
        file: await toFile(audio, 'talk.wav', { type: 'audio/wav' }),
      });
      assert.equal(answer.text, `transcript of talk.wav (${audio.length} bytes) by whisper-1`);
      const form = lastForm();
      assert.equal(form.fields.model, 'whisper-1');
      assert.equal(form.files[0].size, audio.length);
      assert.equal(form.files[0].sha256, sha256(audio));
    });

    it('passes the whole file when the model follows it (the order of OpenAI examples)', async () => {
      const answer = await client.audio.transcriptions.create({
        file: await toFile(audio, 'after.wav', { type: 'audio/wav' }),
        model: 'whisper',
      });
      assert.equal(answer.text, `transcript of after.wav (${audio.length} bytes) by whisper-1`);
      assert.equal(lastForm().files[0].sha256, sha256(audio));
    });

    for (const [format, type] of [
      ['text', 'text/plain'],
      ['srt', 'text/plain'],
      ['vtt', 'text/vtt'],
    ] as const) {
      it(`passes a ${format} answer through as text with the upstream content type`, async () => {
        const form = new FormData();
        form.append('model', 'whisper');
        form.append('response_format', format);
        form.append('file', new Blob([audio.subarray(0, 1000)], { type: 'audio/wav' }), 'short.wav');
        const answer = await post(up.gw, up.key, '/audio/transcriptions', form);
        assert.equal(answer.status, 200);
        assert.ok(answer.headers.get('content-type')?.startsWith(type));
        assert.match(answer.text, /transcript of short\.wav \(1000 bytes\) by whisper-1/);
        assert.ok(!answer.text.startsWith('"'), 'not JSON-encoded');
      });
    }

    it('answers text through the SDK as a string', async () => {
      const text = await client.audio.transcriptions.create({
        model: 'whisper',
        file: await toFile(audio.subarray(0, 10), 'tiny.wav'),
        response_format: 'text',
      });
      assert.equal(text, 'transcript of tiny.wav (10 bytes) by whisper-1\n');
    });

    it('refuses a form without a model, and a JSON body, before any upstream call', async () => {
      const before = up.openai.requests.length;
      const form = new FormData();
      form.append('file', new Blob([audio.subarray(0, 100)]), 'no-model.wav');
      const missing = await post(up.gw, up.key, '/audio/transcriptions', form);
      assert.equal(missing.status, 400);
      assert.equal((missing.json().error as { param: string }).param, 'model');
      const json = await post(up.gw, up.key, '/audio/transcriptions', { model: 'whisper' });
      assert.equal(json.status, 415);
      const multipartChat = new FormData();
      multipartChat.append('model', 'gpt');
      assert.equal((await post(up.gw, up.key, '/chat/completions', multipartChat)).status, 415);
      assert.equal(up.openai.requests.length, before);
    });

    it('refuses a stream request on an endpoint that does not stream', async () => {
      const error = await rejection<InstanceType<typeof OpenAI.APIError>>(
        client.audio.transcriptions.create({
          model: 'whisper',
          file: await toFile(audio.subarray(0, 10), 'tiny.wav'),
          stream: true,
        }),
      );
      assert.equal(error.status, 400);
      assert.equal(error.param, 'stream');
    });
  });
});
