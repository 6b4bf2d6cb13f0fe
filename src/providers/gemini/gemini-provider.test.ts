/**
 * The adapter end to end over real HTTP: buildRequest -> undici -> the Gemini fake ->
 * parseResponse / stream decoder / classifyError.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { decodeBody } from '../../../test/fakes/decode-stream.ts';
import { GeminiFake } from '../../../test/fakes/gemini-fake.ts';
import { callUpstream, readAnswer, sendUpstream } from '../../../test/fakes/upstream-call.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ChatCompletion, ChatCompletionRequest } from '../../formats/chat-completions/wire.ts';
import type { DeploymentTarget, OperationAdapter, StreamEvent } from '../types.ts';
import type { EmbeddingsRequest, EmbeddingsResponse } from './gemini-embeddings.ts';
import { createGeminiProvider } from './gemini-provider.ts';

const adapter = createGeminiProvider();
const chat = adapter.operations['chat.completions'] as OperationAdapter<
  ChatCompletionRequest,
  ChatCompletion
>;
const embeddings = adapter.operations.embeddings as OperationAdapter<EmbeddingsRequest, EmbeddingsResponse>;

let fake: GeminiFake;
before(async () => {
  fake = await GeminiFake.start();
});
after(() => fake.close());
beforeEach(() => fake.reset());

const target = (over: Partial<DeploymentTarget> = {}): DeploymentTarget => ({
  id: 'dep_gemini',
  provider: 'gemini',
  upstreamModel: 'gemini-2.0-flash',
  apiKey: fake.apiKey,
  baseUrl: fake.baseUrl,
  providerOptions: {},
  ...over,
});

const body = (over: Partial<ChatCompletionRequest> = {}): ChatCompletionRequest => ({
  model: 'gemini-2.0-flash',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'hello there' },
  ],
  ...over,
});

const complete = (requestBody: ChatCompletionRequest, deployment = target()) =>
  callUpstream(adapter, chat, deployment, requestBody);

async function streamEvents(requestBody: ChatCompletionRequest): Promise<StreamEvent[]> {
  const deployment = target();
  const response = await sendUpstream(
    chat.buildRequest({ target: deployment, body: requestBody, stream: true }),
  );
  assert.equal(response.status, 200);
  assert.equal(response.headers['content-type'], 'text/event-stream');
  return decodeBody(
    chat.createStreamDecoder!(deployment, { body: requestBody, publicModel: 'public-model' }),
    response.body,
  );
}

interface ChunkLike {
  choices: Array<{
    index: number;
    delta: { content?: string; tool_calls?: Array<{ function: { name?: string; arguments: string } }> };
    finish_reason: string | null;
  }>;
  usage?: unknown;
}
const chunks = (events: StreamEvent[]) =>
  events.flatMap((e) => (typeof e.data === 'object' ? [e.data as ChunkLike] : []));
const textOf = (events: StreamEvent[], index = 0) =>
  chunks(events)
    .flatMap((c) => c.choices.filter((choice) => choice.index === index))
    .map((choice) => choice.delta.content ?? '')
    .join('');

describe('generateContent over HTTP', () => {
  test('the answer becomes a chat.completion with usage', async () => {
    const { answer } = await complete(body());
    assert.equal(answer?.choices[0].message.content, 'echo: hello there');
    assert.equal(answer?.choices[0].finish_reason, 'stop');
    assert.equal(answer?.model, 'gemini-2.0-flash');
    assert.deepEqual(answer?.usage, { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 });
  });

  test('the fake saw the key header (never the query), the model path and the converted body', async () => {
    await complete(body({ temperature: 0.3 }));
    const [seen] = fake.requests;
    assert.equal(seen.url, '/v1beta/models/gemini-2.0-flash:generateContent');
    assert.equal(seen.headers['x-goog-api-key'], fake.apiKey);
    assert.deepEqual(seen.body, {
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [{ role: 'user', parts: [{ text: 'hello there' }] }],
      generationConfig: { temperature: 0.3 },
    });
  });

  test('n=2 gives two choices', async () => {
    const { answer } = await complete(body({ n: 2 }));
    assert.deepEqual(
      answer?.choices.map((c) => c.message.content),
      ['echo: hello there', 'echo 1: hello there'],
    );
  });

  test('a forced function call comes back as tool_calls with a generated id', async () => {
    const { answer } = await complete(
      body({
        tools: [
          {
            type: 'function',
            function: {
              name: 'lookup',
              parameters: { type: 'object', properties: { q: { type: 'string' } } },
            },
          },
        ],
        tool_choice: 'required',
      }),
    );
    const [choice] = answer?.choices ?? [];
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.match(choice.message.tool_calls?.[0].id ?? '', /^call_[0-9a-f]{24}$/);
    assert.deepEqual(choice.message.tool_calls?.[0].function, {
      name: 'lookup',
      arguments: '{"echo":"hello there"}',
    });
  });
});

describe('failures over HTTP', () => {
  test('a wrong key is upstream_auth_failed although Gemini answers 400', async () => {
    const { error } = await complete(body(), target({ apiKey: 'wrong' }));
    assert.equal(error?.code, 'upstream_auth_failed');
  });

  test('an injected 429 with RetryInfo is a rate limit with the delay', async () => {
    fake.enqueueAnswer({
      status: 429,
      body: {
        error: {
          code: 429,
          status: 'RESOURCE_EXHAUSTED',
          message: 'Quota exceeded.',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '12s' }],
        },
      },
    });
    const { error } = await complete(body());
    assert.deepEqual(error, {
      errorClass: 'rate_limit',
      code: 'rate_limit_exceeded',
      retryAfterSeconds: 12,
      providerMessage: 'Quota exceeded.',
    });
  });

  test('an injected blocked prompt is a content policy error from parseResponse', async () => {
    fake.enqueueAnswer({ status: 200, body: { promptFeedback: { blockReason: 'SAFETY' } } });
    await assert.rejects(
      complete(body()),
      (error: unknown) => error instanceof GatewayError && error.code === 'content_policy_violation',
    );
  });
});

describe('streamGenerateContent over HTTP', () => {
  test('SSE chunks decode into chat chunks, a usage chunk and [DONE]', async () => {
    const events = await streamEvents(body({ stream: true, stream_options: { include_usage: true } }));
    assert.equal(fake.requests[0].url, '/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
    assert.equal(textOf(events), 'echo: hello there');
    assert.equal(chunks(events).findLast((c) => c.choices.length > 0)?.choices[0].finish_reason, 'stop');
    const usageChunk = events.at(-2)!.data as ChunkLike;
    assert.deepEqual(usageChunk.choices, []);
    assert.deepEqual(usageChunk.usage, { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 });
    assert.equal(events.at(-1)?.data, '[DONE]');
  });

  test('two candidates stream as two choices', async () => {
    const events = await streamEvents(body({ stream: true, n: 2 }));
    assert.equal(textOf(events, 0), 'echo: hello there');
    assert.equal(textOf(events, 1), 'echo 1: hello there');
  });

  test('a streamed function call finishes with tool_calls', async () => {
    const events = await streamEvents(
      body({
        stream: true,
        tools: [{ type: 'function', function: { name: 'lookup' } }],
        tool_choice: { type: 'function', function: { name: 'lookup' } },
      }),
    );
    const calls = chunks(events).flatMap((c) => c.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
    assert.deepEqual(
      calls.map((call) => call.function),
      [{ name: 'lookup', arguments: '{"echo":"hello there"}' }],
    );
    assert.equal(
      chunks(events).findLast((c) => c.choices.length > 0)?.choices[0].finish_reason,
      'tool_calls',
    );
  });

  test('an error event mid-stream is a classified GatewayError', async () => {
    fake.failNextStream(2, { code: 503, status: 'UNAVAILABLE', message: 'The model is overloaded.' });
    await assert.rejects(
      streamEvents(body({ stream: true })),
      (error: unknown) => error instanceof GatewayError && error.code === 'upstream_overloaded',
    );
  });

  test('a stream cut after two events is an upstream error, never a clean end', async () => {
    fake.faultNextStream({ afterEvents: 2, action: 'end' });
    await assert.rejects(
      streamEvents(body({ stream: true })),
      (error: unknown) => error instanceof GatewayError && error.code === 'upstream_error',
    );
  });
});

describe('batchEmbedContents over HTTP', () => {
  const embedTarget = () => target({ upstreamModel: 'gemini-embedding-001' });

  async function embed(requestBody: EmbeddingsRequest) {
    const response = await sendUpstream(
      embeddings.buildRequest({ target: embedTarget(), body: requestBody, stream: false }),
    );
    assert.equal(response.status, 200);
    return embeddings.parseResponse(await readAnswer(response), embedTarget(), requestBody);
  }

  test('a list of inputs gives one embedding each, in order, with the requested dimensions', async () => {
    const answer = await embed({
      model: 'gemini-embedding-001',
      input: ['ab', 'cd'],
      dimensions: 4,
      encoding_format: 'float',
    });
    assert.equal(fake.requests[0].url, '/v1beta/models/gemini-embedding-001:batchEmbedContents');
    assert.deepEqual(
      answer.data.map((d) => [d.index, (d.embedding as number[]).length]),
      [
        [0, 4],
        [1, 4],
      ],
    );
    assert.equal(embeddings.usageOf(answer), null);
  });

  test('base64, the default of the OpenAI SDKs, decodes back to the same floats', async () => {
    const floats = await embed({ model: 'e', input: 'hello', encoding_format: 'float' });
    const base64 = await embed({ model: 'e', input: 'hello', encoding_format: 'base64' });
    const bytes = Buffer.from(base64.data[0].embedding as string, 'base64');
    const decoded = [...new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)];
    assert.deepEqual(
      decoded,
      (floats.data[0].embedding as number[]).map((v) => Math.fround(v)),
    );
  });
});
