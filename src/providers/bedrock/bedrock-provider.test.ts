/**
 * The adapter end to end over real HTTP: buildRequest -> undici -> the Bedrock fake (which checks
 * the SigV4 signature) -> parseResponse / stream decoder / classifyError.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { BedrockFake } from '../../../test/fakes/bedrock-fake.ts';
import { decodeBody } from '../../../test/fakes/decode-stream.ts';
import { callUpstream, readAnswer, sendUpstream } from '../../../test/fakes/upstream-call.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ChatCompletion, ChatCompletionRequest } from '../../formats/chat-completions/wire.ts';
import type { DeploymentTarget, OperationAdapter, StreamEvent } from '../types.ts';
import { createBedrockProvider } from './bedrock-provider.ts';

const MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';
const adapter = createBedrockProvider({ now: () => new Date() });
const chat = adapter.operations['chat.completions'] as OperationAdapter<
  ChatCompletionRequest,
  ChatCompletion
>;
assert.ok(chat?.createStreamDecoder);

let fake: BedrockFake;
before(async () => {
  fake = await BedrockFake.start();
});
after(() => fake.close());
beforeEach(() => fake.reset());

const target = (over: Partial<DeploymentTarget> = {}): DeploymentTarget => ({
  id: 'dep_bedrock',
  provider: 'bedrock',
  upstreamModel: MODEL,
  apiKey: fake.apiKey,
  baseUrl: fake.baseUrl,
  providerOptions: { region: fake.region },
  ...over,
});

const body = (over: Partial<ChatCompletionRequest> = {}): ChatCompletionRequest => ({
  model: MODEL,
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
    chat!.buildRequest({ target: deployment, body: requestBody, stream: true }),
  );
  assert.equal(response.status, 200);
  assert.equal(response.headers['content-type'], 'application/vnd.amazon.eventstream');
  return decodeBody(
    chat!.createStreamDecoder!(deployment, { body: requestBody, publicModel: 'public-model' }),
    response.body,
  );
}

const textOf = (events: StreamEvent[]) =>
  events
    .map((e) =>
      typeof e.data === 'object' ? ((e.data as ChatCompletionChunkLike).choices[0]?.delta.content ?? '') : '',
    )
    .join('');
interface ChatCompletionChunkLike {
  choices: Array<{ delta: { content?: string }; finish_reason: string | null }>;
  usage?: unknown;
}

describe('Converse over HTTP', () => {
  test('a signed request is accepted and the answer becomes a chat.completion', async () => {
    const { answer } = await complete(body());
    assert.equal(answer?.choices[0].message.content, 'echo: hello there');
    assert.equal(answer?.choices[0].finish_reason, 'stop');
    assert.deepEqual(answer?.usage, { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 });
  });

  test('the fake saw the encoded model id, the signature headers and the Converse body', async () => {
    await complete(body());
    const [seen] = fake.requests;
    assert.equal(seen.url, '/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse');
    assert.equal(seen.modelId, MODEL);
    assert.match(
      String(seen.headers.authorization),
      /^AWS4-HMAC-SHA256 Credential=AKIDFAKEBEDROCK0001\/\d{8}\/us-east-1\/bedrock\/aws4_request/,
    );
    assert.deepEqual(seen.body, {
      messages: [{ role: 'user', content: [{ text: 'hello there' }] }],
      system: [{ text: 'Be brief.' }],
    });
  });

  test('a forced tool choice comes back as tool_calls', async () => {
    const { answer } = await complete(
      body({ tools: [{ type: 'function', function: { name: 'lookup' } }], tool_choice: 'required' }),
    );
    assert.equal(answer?.choices[0].finish_reason, 'tool_calls');
    assert.deepEqual(answer?.choices[0].message.tool_calls?.[0].function, {
      name: 'lookup',
      arguments: '{"echo":"hello there"}',
    });
  });

  test('temporary credentials (key:secret:token) sign and send the session token', async () => {
    const withToken = await BedrockFake.start({
      credentials: { accessKeyId: 'ASIAFAKE', secretAccessKey: 'tmp-secret', sessionToken: 'session-token' },
    });
    try {
      const deployment = target({ apiKey: withToken.apiKey, baseUrl: withToken.baseUrl });
      const { answer } = await complete(body(), deployment);
      assert.equal(answer?.choices[0].message.content, 'echo: hello there');
      assert.equal(withToken.requests[0].headers['x-amz-security-token'], 'session-token');
    } finally {
      await withToken.close();
    }
  });
});

describe('failures over HTTP', () => {
  test('a wrong secret fails the signature check: upstream_auth_failed', async () => {
    const { error } = await complete(body(), target({ apiKey: 'AKIDFAKEBEDROCK0001:wrong-secret' }));
    assert.equal(error?.code, 'upstream_auth_failed');
    assert.match(String(error?.providerMessage), /signature/);
  });

  test('a body changed after signing fails the signature check', async () => {
    const upstream = chat!.buildRequest({ target: target(), body: body(), stream: false });
    const response = await sendUpstream({
      ...upstream,
      body: (upstream.body as string).replace('hello', 'HELLO'),
    });
    assert.equal(response.status, 403);
    assert.equal(response.headers['x-amzn-errortype']?.split(':')[0], 'InvalidSignatureException');
    await readAnswer(response);
  });

  test('an unknown access key is an unrecognised client: upstream_auth_failed', async () => {
    const { error } = await complete(body(), target({ apiKey: 'AKIDUNKNOWN:secret' }));
    assert.equal(error?.code, 'upstream_auth_failed');
  });

  test('an injected ThrottlingException is a rate limit', async () => {
    fake.enqueueAnswer({
      status: 429,
      body: { message: 'Too many requests, please wait before trying again.' },
      headers: {
        'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/',
      },
    });
    const { error } = await complete(body());
    assert.deepEqual(error, {
      errorClass: 'rate_limit',
      code: 'rate_limit_exceeded',
      providerMessage: 'Too many requests, please wait before trying again.',
    });
  });

  test('an injected too-long ValidationException is context_length_exceeded', async () => {
    fake.enqueueAnswer({
      status: 400,
      body: { message: 'Input is too long for requested model.' },
      headers: { 'x-amzn-errortype': 'ValidationException' },
    });
    const { error } = await complete(body());
    assert.equal(error?.code, 'context_length_exceeded');
  });
});

describe('ConverseStream over HTTP', () => {
  test('the binary event stream decodes into chunks, a usage chunk and [DONE]', async () => {
    const events = await streamEvents(body({ stream: true, stream_options: { include_usage: true } }));
    assert.equal(textOf(events), 'echo: hello there');
    const finish = events.findLast(
      (e) => typeof e.data === 'object' && (e.data as ChatCompletionChunkLike).choices.length > 0,
    );
    assert.equal((finish!.data as ChatCompletionChunkLike).choices[0].finish_reason, 'stop');
    assert.deepEqual((events.at(-2)!.data as ChatCompletionChunkLike).usage, {
      prompt_tokens: 4,
      completion_tokens: 3,
      total_tokens: 7,
    });
    assert.equal(events.at(-1)?.data, '[DONE]');
    assert.equal(fake.requests[0].operation, 'converse-stream');
  });

  test('a streamed tool call arrives as a start and argument deltas that join to the JSON input', async () => {
    const events = await streamEvents(
      body({
        stream: true,
        tools: [{ type: 'function', function: { name: 'lookup' } }],
        tool_choice: { type: 'function', function: { name: 'lookup' } },
      }),
    );
    const args = events
      .flatMap((e) =>
        typeof e.data === 'object'
          ? (
              e.data as {
                choices: Array<{ delta: { tool_calls?: Array<{ function: { arguments: string } }> } }>;
              }
            ).choices
          : [],
      )
      .flatMap((c) => c.delta.tool_calls ?? [])
      .map((call) => call.function.arguments)
      .join('');
    assert.equal(args, '{"echo":"hello there"}');
  });

  test('an exception message mid-stream surfaces as a classified GatewayError', async () => {
    fake.failNextStream(2, 'throttlingException', 'Too many tokens');
    await assert.rejects(
      streamEvents(body({ stream: true })),
      (error: unknown) => error instanceof GatewayError && error.code === 'rate_limit_exceeded',
    );
  });

  test('a stream that ends after three events is an upstream error, never a clean end', async () => {
    fake.faultNextStream({ afterEvents: 3, action: 'end' });
    await assert.rejects(
      streamEvents(body({ stream: true })),
      (error: unknown) => error instanceof GatewayError && error.code === 'upstream_error',
    );
  });
});
