import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import OpenAI, { AzureOpenAI, toFile } from 'openai';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import { getProviderAdapter, planOperation } from '../../src/providers/registry.ts';
import type { DeploymentTarget, MultipartPassThrough } from '../../src/providers/types.ts';
import { eventReaderOf } from '../../src/upstream/event-reader.ts';
import { decodeBodySettled } from './decode-stream.ts';
import type { MultipartBody } from './fake-server.ts';
import { OpenAIFake } from './openai-fake.ts';
import { FAKE_PNG_BASE64 } from './openai-fake-media.ts';
import { readAnswer, sendUpstream } from './upstream-call.ts';

const KEY = 'sk-fake-upstream';
const fake = new OpenAIFake({
  apiKey: KEY,
  models: ['gpt-4o-mini', 'text-embedding-3-small', 'gpt-image-1', 'dall-e-2', 'whisper-1'],
});
let client: OpenAI;
let target: DeploymentTarget;

before(async () => {
  await fake.start();
  client = new OpenAI({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  target = {
    id: 'dep_1',
    provider: 'openai',
    upstreamModel: 'gpt-4o-mini',
    apiKey: KEY,
    baseUrl: fake.baseUrl,
    providerOptions: {},
  };
});
after(() => fake.close());
beforeEach(() => fake.reset());

async function streamThrough(kind: 'chat.completions' | 'responses', body: Record<string, unknown>) {
  const adapter = planOperation('openai', kind)!.adapter;
  const answer = await sendUpstream(adapter.buildRequest({ target, body, stream: true }));
  const decoder = eventReaderOf(adapter.createStreamDecoder!(target, { body, publicModel: 'public-gpt' }));
  const { events, failure } = await decodeBodySettled(decoder, answer.body);
  return { status: answer.status, events, decoder, failure };
}

describe('OpenAI fake through the official SDK (wire-format fidelity)', () => {
  test('chat: JSON answer echoes the last user message', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello there' }],
    });
    assert.equal(completion.choices[0].message.content, 'echo: hello there');
    assert.deepEqual(completion.usage?.prompt_tokens, 2);
    assert.deepEqual(fake.lastRequest?.headers.authorization, `Bearer ${KEY}`);
  });

  test('chat: a streamed tool call assembles in the SDK, with the usage chunk', async () => {
    const stream = client.chat.completions.stream({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'call the tool please' }],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0].message.tool_calls?.[0];
    assert.equal(call?.type === 'function' && call.function.name, 'lookup');
    assert.deepEqual(call?.type === 'function' && JSON.parse(call.function.arguments), {
      echo: 'call the tool please',
    });
    assert.equal(final.choices[0].finish_reason, 'tool_calls');
    assert.equal(final.usage?.completion_tokens, 10);
  });

  test('responses: streamed events assemble into the final response', async () => {
    const stream = client.responses.stream({
      model: 'gpt-4o-mini',
      input: 'tell me something',
      instructions: 'be kind',
    });
    const final = await stream.finalResponse();
    assert.equal(final.output_text, 'echo: tell me something');
    assert.equal(final.usage?.output_tokens, 4);
  });

  test('embeddings: the SDK asks for base64 and decodes it back to floats', async () => {
    const result = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['a', 'b'],
      dimensions: 4,
    });
    assert.equal(result.data.length, 2);
    assert.equal(result.data[0].embedding.length, 4);
    assert.equal((fake.lastRequest!.body as { encoding_format: string }).encoding_format, 'base64');
  });

  test('images: generation, edit and variation (multipart parsed by the fake)', async () => {
    const generated = await client.images.generate({ model: 'gpt-image-1', prompt: 'a red fox', n: 2 });
    assert.equal(generated.data?.length, 2);
    assert.equal(generated.data?.[0].b64_json, FAKE_PNG_BASE64);
    assert.equal(generated.usage?.input_tokens, 3);
    const png = Buffer.from(FAKE_PNG_BASE64, 'base64');
    const edited = await client.images.edit({
      model: 'gpt-image-1',
      prompt: 'add a hat',
      image: await toFile(png, 'fox.png', { type: 'image/png' }),
    });
    assert.equal(edited.data?.[0].revised_prompt, `add a hat (edited fox.png, ${png.length} bytes)`);
    const received = fake.lastRequest!.body as MultipartBody;
    assert.equal(received.fields.prompt, 'add a hat');
    assert.equal(received.files[0].size, png.length);
    const variations = await client.images.createVariation({
      model: 'dall-e-2',
      image: await toFile(png, 'fox.png'),
      n: 3,
      response_format: 'url',
    });
    assert.equal(variations.data?.length, 3);
    assert.match(variations.data?.[0].url ?? '', /^https:\/\/images\.fake\.invalid\//);
  });

  test('audio: transcription as JSON and as text, naming the model the fake received', async () => {
    const audio = await toFile(Buffer.alloc(64_000), 'speech.wav', { type: 'audio/wav' });
    const json = await client.audio.transcriptions.create({ model: 'whisper-1', file: audio });
    assert.equal(json.text, 'transcript of speech.wav (64000 bytes) by whisper-1');
    const text = await client.audio.transcriptions.create({
      model: 'whisper-1',
      file: await toFile(Buffer.alloc(10), 'a.mp3'),
      response_format: 'text',
    });
    assert.equal(text, 'transcript of a.mp3 (10 bytes) by whisper-1\n');
  });

  test('an unknown model is a 404 model_not_found, a wrong key a 401', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }),
      { status: 404 },
    );
    const stranger = new OpenAI({ apiKey: 'wrong', baseURL: fake.baseUrl, maxRetries: 0 });
    await assert.rejects(stranger.models.list(), { status: 401 });
  });

  test('models are listed', async () => {
    const page = await client.models.list();
    assert.ok(page.data.some((model) => model.id === 'whisper-1'));
  });

  test('Azure paths and the api-key header (the AzureOpenAI client)', async () => {
    const azure = new AzureOpenAI({
      endpoint: fake.url,
      apiKey: KEY,
      apiVersion: '2024-10-21',
      deployment: 'gpt-4o-mini',
      maxRetries: 0,
    });
    const completion = await azure.chat.completions.create({
      model: 'ignored',
      messages: [{ role: 'user', content: 'hi azure' }],
    });
    assert.equal(completion.choices[0].message.content, 'echo: hi azure');
    assert.equal(fake.lastRequest?.path, '/openai/deployments/gpt-4o-mini/chat/completions');
    assert.equal(fake.lastRequest?.query['api-version'], '2024-10-21');
    assert.equal(fake.lastRequest?.headers['api-key'], KEY);
  });
});

describe('OpenAI-family adapters against the fake over HTTP', () => {
  for (const [api, providerOptions, path, version] of [
    ['the v1 API', {}, '/openai/v1/chat/completions', undefined],
    [
      'a pinned version',
      { apiVersion: '2024-10-21' },
      '/openai/deployments/gpt-4o-mini/chat/completions',
      '2024-10-21',
    ],
  ] as const) {
    test(`the azure adapter on ${api} reaches ${path} with the api-key`, async () => {
      const azureTarget = {
        ...target,
        provider: 'azure',
        baseUrl: fake.url,
        upstreamModel: 'gpt-4o-mini',
        providerOptions,
      };
      const adapter = planOperation('azure', 'chat.completions')!.adapter;
      const body = { model: 'public', messages: [{ role: 'user', content: 'hi azure' }] };
      const answer = await sendUpstream(adapter.buildRequest({ target: azureTarget, body, stream: false }));
      assert.equal(answer.status, 200);
      const parsed = adapter.parseResponse(await readAnswer(answer), azureTarget) as {
        choices: Array<{ message: { content: string } }>;
      };
      assert.equal(parsed.choices[0].message.content, 'echo: hi azure');
      assert.equal(fake.lastRequest!.path, path);
      assert.equal(fake.lastRequest!.query['api-version'], version);
      assert.equal((fake.lastRequest!.body as { model: string }).model, 'gpt-4o-mini');
      assert.equal(fake.lastRequest!.headers['api-key'], KEY);
      assert.equal(fake.lastRequest!.headers.authorization, undefined);
    });
  }

  test('chat stream: events and usage through the decoder; the usage chunk hidden from a client that did not ask', async () => {
    const { events, decoder, failure } = await streamThrough('chat.completions', {
      model: 'public',
      messages: [{ role: 'user', content: 'one two three' }],
    });
    assert.equal(failure, null);
    assert.equal((fake.lastRequest!.body as { stream_options: unknown }).stream_options !== undefined, true);
    assert.equal(events.at(-1)?.data, '[DONE]');
    assert.ok(events.every((e) => e.data === '[DONE]' || !('usage' in (e.data as object))));
    assert.deepEqual(decoder.usage(), { inputTokens: 3, outputTokens: 4 });
  });

  test('a transcription through the adapter arrives with the upstream model in its form', async () => {
    const boundary = 'xYzBoundary';
    const form = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\npublic-transcriber\r\n`,
      ),
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="talk.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
      ),
      Buffer.alloc(32_000, 1),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const multipart: MultipartPassThrough = {
      kind: 'multipart',
      contentType: `multipart/form-data; boundary=${boundary}`,
      stream: (await import('node:stream')).Readable.from([form.subarray(0, 100), form.subarray(100)]),
    };
    const adapter = getProviderAdapter('openai')!.operations['audio.transcriptions']!;
    const request = adapter.buildRequest({
      target: { ...target, upstreamModel: 'whisper-1' },
      body: undefined,
      stream: false,
      multipart,
    });
    const answer = await sendUpstream(request);
    assert.equal(answer.status, 200);
    const parsed = adapter.parseResponse(await readAnswer(answer), target);
    assert.deepEqual(parsed, {
      text: 'transcript of talk.wav (32000 bytes) by whisper-1',
      usage: { type: 'duration', seconds: 1 },
    });
    assert.deepEqual(adapter.usageOf(parsed), { inputTokens: 0, outputTokens: 0, audioSeconds: 1 });
    assert.equal((fake.lastRequest!.body as MultipartBody).fields.model, 'whisper-1');
  });

  test('injected 429 with retry-after is classified as a rate limit with its delay', async () => {
    fake.enqueue({
      status: 429,
      body: {
        error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' },
      },
      headers: { 'retry-after': '3' },
    });
    const adapter = planOperation('openai', 'chat.completions')!.adapter;
    const answer = await sendUpstream(
      adapter.buildRequest({ target, body: { model: 'x', messages: [] }, stream: false }),
    );
    const info = getProviderAdapter('openai')!.classifyError(
      answer.status,
      await readAnswer(answer),
      answer.headers,
    );
    assert.deepEqual(info, {
      errorClass: 'rate_limit',
      code: 'rate_limit_exceeded',
      retryAfterSeconds: 3,
      providerMessage: 'Rate limit reached',
    });
  });

  test('failNext(n) fails n calls, then the fake answers again', async () => {
    fake.failNext(2, {
      status: 503,
      body: { error: { message: 'overloaded', type: 'server_error', param: null, code: null } },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${fake.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }),
      });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    assert.deepEqual(statuses, [503, 503, 200]);
  });

  test('a context window overflow is classified as context_length_exceeded', async () => {
    const small = await new OpenAIFake({ contextWindow: 3 }).start();
    try {
      const adapter = planOperation('openai', 'chat.completions')!.adapter;
      const body = { model: 'm', messages: [{ role: 'user', content: 'one two three four five' }] };
      const answer = await sendUpstream(
        adapter.buildRequest({ target: { ...target, baseUrl: small.baseUrl }, body, stream: false }),
      );
      const info = getProviderAdapter('openai')!.classifyError(
        answer.status,
        await readAnswer(answer),
        answer.headers,
      );
      assert.equal(info.code, 'context_length_exceeded');
    } finally {
      await small.close();
    }
  });

  test('a stream cut cleanly before [DONE] fails in finish(), never a clean end', async () => {
    fake.faultNextStream({ afterEvents: 3, action: 'end' });
    const { events, failure } = await streamThrough('chat.completions', {
      model: 'x',
      messages: [{ role: 'user', content: 'a b c d' }],
    });
    assert.equal(events.length, 3);
    assert.ok(failure instanceof GatewayError && failure.code === 'upstream_error');
  });

  test('a responses stream reset mid-way fails', async () => {
    fake.faultNextStream({ afterEvents: 4, action: 'destroy' });
    const { failure } = await streamThrough('responses', { model: 'x', input: 'a b c' });
    assert.notEqual(failure, null);
  });

  test('a hung stream the client abandons is counted as aborted', async () => {
    fake.faultNextStream({ afterEvents: 2, action: 'hang' });
    const adapter = planOperation('openai', 'chat.completions')!.adapter;
    const controller = new AbortController();
    const body = { model: 'x', messages: [{ role: 'user', content: 'hang on' }] };
    const answer = await sendUpstream(
      adapter.buildRequest({ target, body, stream: true }),
      controller.signal,
    );
    const decoder = eventReaderOf(adapter.createStreamDecoder!(target, { body, publicModel: 'public-gpt' }));
    let seen = 0;
    const aborted = fake.waitForAbort();
    await assert.rejects(
      (async () => {
        for await (const chunk of answer.body) {
          seen += decoder.push(chunk as Buffer).length;
          if (seen >= 2) controller.abort();
        }
      })(),
    );
    await aborted;
    assert.equal(fake.aborted, 1);
  });

  test('raw SSE injected after some events reaches the decoder (an error chunk mid-stream)', async () => {
    fake.faultNextStream({
      afterEvents: 2,
      action: { raw: 'data: {"error":{"message":"boom","type":"server_error","code":null}}\n\n' },
    });
    const { failure } = await streamThrough('chat.completions', {
      model: 'x',
      messages: [{ role: 'user', content: 'a b c' }],
    });
    assert.ok(failure instanceof GatewayError && failure.code === 'upstream_error');
  });

  test('latency: a client that gives up before the answer is counted as aborted', async () => {
    fake.latencyMs = 5_000;
    const aborted = fake.waitForAbort();
    await assert.rejects(
      fetch(`${fake.baseUrl}/models`, {
        headers: { authorization: `Bearer ${KEY}` },
        signal: AbortSignal.timeout(50),
      }),
    );
    await aborted;
    assert.equal(fake.aborted, 1);
  });
});
