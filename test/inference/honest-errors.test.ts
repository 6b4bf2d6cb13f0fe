import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { AnthropicFake } from '../fakes/anthropic-fake.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { providerWording, recordedReply, recordedText } from '../fakes/recorded.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import {
  ANTHROPIC_UPSTREAM_KEY,
  admin,
  answerFirstFailure,
  anthropicClient,
  createDeployment,
  createKey,
  openaiClient,
  rejection,
  startUpstreams,
  type Upstreams,
} from './support.ts';

const USER = [{ role: 'user' as const, content: 'one two three four five' }];
const anthropicError = (type: string, message: string) => ({ type: 'error', error: { type, message } });

/** The Anthropic error body an SDK error carries. */
function anthropicBody(error: unknown): { type: string; error: { type: string; message: string } } {
  assert.ok(error instanceof Anthropic.APIError, String(error));
  return error.error as { type: string; error: { type: string; message: string } };
}

async function drainAnthropic(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _event of stream);
}

async function drainOpenAI(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _chunk of stream);
}

/**
 * What clients act on survives an upstream's refusal (docs/api.md, Errors), through both official
 * SDKs, plain and streamed: Anthropic's overload and size errors keep their types and statuses,
 * context-window refusals say `prompt is too long` to Anthropic clients, and OpenAI clients keep
 * the field and documented code the upstream named. No provider wording reaches them.
 */
describe('honest upstream errors through the official SDKs', () => {
  let up: Upstreams;
  let anthropic: Anthropic;
  let openai: OpenAI;
  before(async () => {
    up = await startUpstreams();
    await answerFirstFailure(up.gw);
    anthropic = anthropicClient(up.gw, up.key);
    openai = openaiClient(up.gw, up.key);
  });
  beforeEach(() => {
    up.openai.reset();
    up.anthropic.reset();
  });
  after(() => up?.close());

  const overloaded = recordedReply('anthropic', 'anthropic-529-overloaded-error.http');

  it('anthropic-529-overloaded-error.http reaches Anthropic clients as OverloadedError (529), plain and streamed', async () => {
    up.anthropic.failNext(2, overloaded);
    const plain = await rejection(
      anthropic.messages.create({ model: 'claude', max_tokens: 20, messages: USER }),
    );
    assert.ok(plain instanceof Anthropic.OverloadedError);
    assert.equal(plain.status, 529);
    assert.equal(anthropicBody(plain).error.type, 'overloaded_error');
    assert.ok(!JSON.stringify(anthropicBody(plain)).includes(providerWording(overloaded)));
    const streamed = await rejection(
      drainAnthropic(anthropic.messages.stream({ model: 'claude', max_tokens: 20, messages: USER })),
    );
    assert.ok(streamed instanceof Anthropic.OverloadedError);
  });

  it('anthropic-stream-overloaded-error.sse mid-stream keeps its type in the error event', async () => {
    up.anthropic.faultNextStream({
      afterEvents: 3,
      action: { raw: recordedText('anthropic', 'anthropic-stream-overloaded-error.sse') },
    });
    const error = await rejection(
      drainAnthropic(anthropic.messages.stream({ model: 'claude', max_tokens: 20, messages: USER })),
    );
    assert.equal(anthropicBody(error).error.type, 'overloaded_error');
    assert.ok(!JSON.stringify(anthropicBody(error)).includes(providerWording(overloaded)));
  });

  it('reaches OpenAI clients through the Chat translation as 503 upstream_overloaded', async () => {
    up.anthropic.enqueue(overloaded);
    const error = await rejection(openai.chat.completions.create({ model: 'claude', messages: USER }));
    assert.ok(error instanceof OpenAI.InternalServerError);
    assert.equal(error.status, 503);
    assert.equal(error.code, 'upstream_overloaded');
  });

  it('anthropic-413-request-too-large.http: ContentTooLargeError for Anthropic clients, the code for OpenAI clients', async () => {
    const tooLarge = recordedReply('anthropic', 'anthropic-413-request-too-large.http');
    up.anthropic.failNext(2, tooLarge);
    const plain = await rejection(
      anthropic.messages.create({ model: 'claude', max_tokens: 20, messages: USER }),
    );
    assert.ok(plain instanceof Anthropic.ContentTooLargeError);
    assert.equal(anthropicBody(plain).error.type, 'request_too_large');
    const streamed = await rejection(
      drainAnthropic(anthropic.messages.stream({ model: 'claude', max_tokens: 20, messages: USER })),
    );
    assert.ok(streamed instanceof Anthropic.ContentTooLargeError);
    up.anthropic.enqueue(tooLarge);
    const chat = await rejection(openai.chat.completions.create({ model: 'claude', messages: USER }));
    assert.ok(chat instanceof OpenAI.APIError);
    assert.equal(chat.status, 413);
    assert.equal(chat.code, 'request_too_large');
  });

  it('anthropic-400-prompt-too-long.http says `prompt is too long` with its counts, plain and streamed', async () => {
    const refusal = recordedReply('anthropic', 'anthropic-400-prompt-too-long.http');
    up.anthropic.failNext(2, refusal);
    const plain = await rejection(
      anthropic.messages.create({ model: 'claude', max_tokens: 20, messages: USER }),
    );
    assert.ok(plain instanceof Anthropic.BadRequestError);
    assert.deepEqual(anthropicBody(plain).error, {
      type: 'invalid_request_error',
      message: 'prompt is too long: 208310 tokens > 200000 maximum',
    });
    const streamed = await rejection(
      drainAnthropic(anthropic.messages.stream({ model: 'claude', max_tokens: 20, messages: USER })),
    );
    assert.match(
      anthropicBody(streamed).error.message,
      /^prompt is too long: 208310 tokens > 200000 maximum$/,
    );
  });

  it('openai-400-context-length-exceeded.http reaches an Anthropic client as `prompt is too long`', async () => {
    up.openai.enqueue(recordedReply('openai', 'openai-400-context-length-exceeded.http'));
    const error = await rejection(
      anthropic.messages.create({ model: 'gpt', max_tokens: 20, messages: USER }),
    );
    assert.equal(anthropicBody(error).error.message, 'prompt is too long: 130512 tokens > 128000 maximum');
  });

  it("the gateway's own context-window check says `prompt is too long` with its estimate", async () => {
    const huge = [{ role: 'user' as const, content: 'hello '.repeat(210_000) }];
    const error = await rejection(
      anthropic.messages.create({ model: 'claude', max_tokens: 20, messages: huge }),
    );
    assert.ok(error instanceof Anthropic.BadRequestError);
    assert.match(anthropicBody(error).error.message, /^prompt is too long: \d+ tokens > 200000 maximum$/);
    assert.equal(up.anthropic.requests.length, 0);
    const chat = await rejection(openai.chat.completions.create({ model: 'gpt', messages: huge }));
    assert.ok(chat instanceof OpenAI.BadRequestError);
    assert.equal(chat.code, 'context_length_exceeded');
    assert.equal(chat.param, 'messages');
  });

  it('keeps the field and documented code an OpenAI upstream named (openai-400-invalid-value-temperature.http), plain and streamed', async () => {
    const invalid = recordedReply('openai', 'openai-400-invalid-value-temperature.http');
    up.openai.failNext(2, invalid);
    const plain = await rejection(openai.chat.completions.create({ model: 'gpt', messages: USER }));
    assert.ok(plain instanceof OpenAI.BadRequestError);
    assert.deepEqual([plain.param, plain.code], ['temperature', 'invalid_value']);
    assert.ok(!plain.message.includes(providerWording(invalid)));
    const streamed = await rejection(
      (async () =>
        drainOpenAI(await openai.chat.completions.create({ model: 'gpt', messages: USER, stream: true })))(),
    );
    assert.ok(streamed instanceof OpenAI.BadRequestError);
    assert.deepEqual([streamed.param, streamed.code], ['temperature', 'invalid_value']);
  });

  it('drops them when the request was translated (openai-400-invalid-messages.http to a Responses call served by Chat Completions)', async () => {
    up.openai.enqueue(recordedReply('openai', 'openai-400-invalid-messages.http'));
    const error = await rejection(openai.responses.create({ model: 'compat', input: 'hi' }));
    assert.ok(error instanceof OpenAI.BadRequestError);
    assert.deepEqual([error.param, error.code], [null, 'invalid_request']);
  });

  it('an undocumented upstream code stays private (openai-400-undocumented-code.http)', async () => {
    up.openai.enqueue(recordedReply('openai', 'openai-400-undocumented-code.http'));
    const error = await rejection(openai.chat.completions.create({ model: 'gpt', messages: USER }));
    assert.ok(error instanceof OpenAI.BadRequestError);
    assert.equal(error.code, 'invalid_request');
  });
});

describe('UPSTREAM_ERROR_MESSAGES=passthrough', () => {
  let fake: AnthropicFake;
  let gw: TestGateway;
  before(async () => {
    fake = await new AnthropicFake({ apiKey: ANTHROPIC_UPSTREAM_KEY }).start();
    gw = await startTestGateway({ redis: false, env: { UPSTREAM_ERROR_MESSAGES: 'passthrough' } });
    await createDeployment(gw, {
      publicModel: 'claude',
      provider: 'anthropic',
      upstreamModel: 'claude-sonnet-4-5',
      baseUrl: fake.url,
      apiKey: ANTHROPIC_UPSTREAM_KEY,
    });
    await answerFirstFailure(gw);
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
  });

  it("passes the upstream's message to both SDKs, scrubbed of the deployment's key and credentials", async () => {
    // Built here, not recorded: the message must hold this deployment's own key to prove it scrubbed.
    const message = `messages.0: invalid for key ${ANTHROPIC_UPSTREAM_KEY} (Bearer abc.def.ghi)`;
    fake.failNext(2, { status: 400, body: anthropicError('invalid_request_error', message) });
    const key = await createKey(gw);
    const viaAnthropic = await rejection(
      anthropicClient(gw, key).messages.create({ model: 'claude', max_tokens: 20, messages: USER }),
    );
    const shown = anthropicBody(viaAnthropic).error.message;
    assert.equal(shown, 'messages.0: invalid for key [redacted] (Bearer [redacted])');
    const viaOpenAI = await rejection(
      openaiClient(gw, key).chat.completions.create({ model: 'claude', messages: USER }),
    );
    assert.ok(viaOpenAI instanceof OpenAI.BadRequestError);
    assert.ok(viaOpenAI.message.includes('messages.0: invalid for key [redacted]'), viaOpenAI.message);
    assert.ok(!viaOpenAI.message.includes(ANTHROPIC_UPSTREAM_KEY));
  });

  it("keeps the gateway's own messages for its own refusals", async () => {
    const error = await rejection(
      anthropicClient(gw, await createKey(gw, ['other'])).messages.create({
        model: 'claude',
        max_tokens: 20,
        messages: USER,
      }),
    );
    assert.equal(anthropicBody(error).error.message, 'This key is not allowed to use the requested model.');
  });
});

describe("the gateway's own body limit", () => {
  let gw: TestGateway;
  let fake: OpenAIFake;
  before(async () => {
    gw = await startTestGateway({ redis: false, env: { BODY_LIMIT_BYTES: '2048' } });
    fake = await new OpenAIFake().start();
    await createDeployment(gw, {
      publicModel: 'whisper',
      provider: 'openai',
      upstreamModel: 'whisper-1',
      baseUrl: fake.baseUrl,
      apiKey: 'sk-upstream-test',
    });
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('answers 413 at once to a multipart upload declaring more than the limit, before reading it', async () => {
    const boundary = 'switchyard-boundary';
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n` +
      'Content-Type: audio/wav\r\n\r\n';
    const request = http.request(`${gw.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await createKey(gw)}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(10_000_000),
      },
    });
    request.on('error', () => {});
    // Only the head is sent: the answer must not wait for the 10 MB the request announced.
    request.write(head);
    const answered = once(request, 'response') as Promise<[http.IncomingMessage]>;
    const timeout = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 5_000).unref());
    const outcome = await Promise.race([answered, timeout]);
    request.destroy();
    assert.notEqual(outcome, 'waited', 'answered before the body was sent');
    const [response] = outcome as [http.IncomingMessage];
    let text = '';
    for await (const chunk of response) text += String(chunk);
    assert.equal(response.statusCode, 413);
    assert.equal((JSON.parse(text) as { error: { code: string } }).error.code, 'request_too_large');
    assert.equal(fake.requests.length, 0, 'nothing went upstream');
  });

  it('answers 413 to a JSON body sent in chunks past the limit, with no length declared', async () => {
    const request = http.request(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await createKey(gw)}`, 'content-type': 'application/json' },
    });
    request.on('error', () => {});
    const answered = once(request, 'response') as Promise<[http.IncomingMessage]>;
    // Chunked transfer: the gateway learns the size only by reading it, 1 KiB at a time.
    request.write('{"model":"whisper","messages":[{"role":"user","content":"');
    for (let i = 0; i < 4; i++) request.write('x'.repeat(1024));
    request.end('"}]}');
    const [response] = await answered;
    let text = '';
    for await (const chunk of response) text += String(chunk);
    assert.equal(response.statusCode, 413, text);
    assert.equal((JSON.parse(text) as { error: { code: string } }).error.code, 'request_too_large');
    assert.equal(fake.requests.length, 0, 'nothing went upstream');
  });

  it('answers 413 request_too_large in both shapes', async () => {
    const key = await createKey(gw);
    const big = [{ role: 'user' as const, content: 'x'.repeat(4096) }];
    const viaAnthropic = await rejection(
      anthropicClient(gw, key).messages.create({ model: 'any', max_tokens: 20, messages: big }),
    );
    assert.ok(viaAnthropic instanceof Anthropic.ContentTooLargeError);
    assert.equal(anthropicBody(viaAnthropic).error.type, 'request_too_large');
    const viaOpenAI = await rejection(
      openaiClient(gw, key).chat.completions.create({ model: 'any', messages: big }),
    );
    assert.ok(viaOpenAI instanceof OpenAI.APIError);
    assert.deepEqual([viaOpenAI.status, viaOpenAI.code], [413, 'request_too_large']);
  });
});

describe('a fallback chain exhausted by overloads', () => {
  let fake: AnthropicFake;
  let gw: TestGateway;
  before(async () => {
    fake = await new AnthropicFake({ apiKey: ANTHROPIC_UPSTREAM_KEY }).start();
    gw = await startTestGateway({ redis: false });
    for (const publicModel of ['claude', 'claude-backup']) {
      await createDeployment(gw, {
        publicModel,
        provider: 'anthropic',
        upstreamModel: 'claude-sonnet-4-5',
        baseUrl: fake.url,
        apiKey: ANTHROPIC_UPSTREAM_KEY,
      });
    }
    // The whole settings: retries and cooldowns off, as answerFirstFailure sets them, and the chain.
    await admin(gw, 'PUT', '/router-settings', {
      retries: { maxAttempts: 1, backoffMs: 0 },
      cooldown: { failureThreshold: 1000, windowMs: 1000, durationMs: 0 },
      fallbacks: { general: { claude: ['claude-backup'] } },
    });
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
  });

  const overloaded = recordedReply('anthropic', 'anthropic-529-overloaded-error.http');

  it('anthropic-529-overloaded-error.http on every deployment answers Anthropic clients 529 overloaded_error, OpenAI clients 503 no_deployments_available', async () => {
    const key = await createKey(gw);
    fake.failNext(2, overloaded);
    const viaAnthropic = await rejection(
      anthropicClient(gw, key).messages.create({ model: 'claude', max_tokens: 20, messages: USER }),
    );
    assert.ok(viaAnthropic instanceof Anthropic.OverloadedError, String(viaAnthropic));
    assert.equal(viaAnthropic.status, 529);
    assert.equal(anthropicBody(viaAnthropic).error.type, 'overloaded_error');
    assert.equal(fake.requests.length, 2, 'the model and its fallback were both tried');
    fake.failNext(2, overloaded);
    const viaOpenAI = await rejection(
      openaiClient(gw, key).chat.completions.create({ model: 'claude', messages: USER }),
    );
    assert.ok(viaOpenAI instanceof OpenAI.APIError);
    assert.deepEqual([viaOpenAI.status, viaOpenAI.code], [503, 'no_deployments_available']);
  });
});
