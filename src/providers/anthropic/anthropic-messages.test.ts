import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { decodeAll } from '../../../test/fakes/decode-stream.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { AnthropicMessagesRequest } from '../../formats/messages/wire.ts';
import { eventReaderOf } from '../../upstream/event-reader.ts';
import type { DeploymentTarget } from '../types.ts';
import { ANTHROPIC_VERSION } from './anthropic-config.ts';
import { anthropicProvider } from './anthropic-provider.ts';
import { AnthropicStreamDecoder } from './claude-stream-events.ts';

const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
const recorded = fixture('messages-stream-tool-use.sse');
const messages = anthropicProvider.operations.messages!;
const target: DeploymentTarget = {
  id: 'dep_a',
  provider: 'anthropic',
  upstreamModel: 'claude-sonnet-4-5-20250929',
  apiKey: 'sk-ant-upstream',
  baseUrl: null,
  providerOptions: {},
};
const body: AnthropicMessagesRequest = {
  model: 'public-claude',
  max_tokens: 256,
  messages: [{ role: 'user', content: 'hi' }],
};

describe('anthropic messages: request and response', () => {
  test('posts to {base}/v1/messages with x-api-key and anthropic-version', () => {
    const request = messages.buildRequest({ target, body, stream: false });
    assert.equal(request.url, 'https://api.anthropic.com/v1/messages');
    assert.equal(request.headers['x-api-key'], 'sk-ant-upstream');
    assert.equal(request.headers['anthropic-version'], ANTHROPIC_VERSION);
    assert.equal(request.headers.authorization, undefined);
    assert.deepEqual(JSON.parse(request.body as string), { ...body, model: 'claude-sonnet-4-5-20250929' });
  });

  test('a base URL override and beta features', () => {
    const request = messages.buildRequest({
      target: {
        ...target,
        baseUrl: 'https://gateway.example/anthropic/',
        providerOptions: { betas: ['a-2025', 'b-2025'] },
      },
      body,
      stream: true,
    });
    assert.equal(request.url, 'https://gateway.example/anthropic/v1/messages');
    assert.equal(request.headers['anthropic-beta'], 'a-2025,b-2025');
    assert.equal(JSON.parse(request.body as string).stream, true);
  });

  test("the client's betas follow the deployment's, each once; the client's version wins", () => {
    const request = messages.buildRequest({
      target: { ...target, providerOptions: { betas: ['a-2025', 'b-2025'] } },
      body,
      stream: false,
      clientHeaders: { 'anthropic-beta': ' b-2025, c-2025,,c-2025', 'anthropic-version': '2024-01-01' },
    });
    assert.equal(request.headers['anthropic-beta'], 'a-2025,b-2025,c-2025');
    assert.equal(request.headers['anthropic-version'], '2024-01-01');
  });

  test('count_tokens posts the body to {base}/v1/messages/count_tokens with the same headers', () => {
    const counter = anthropicProvider.countTokens!;
    const request = counter.buildRequest({
      target,
      body: { model: 'public-claude', messages: body.messages },
      clientHeaders: { 'anthropic-beta': 'x-2025' },
    });
    assert.equal(request.url, 'https://api.anthropic.com/v1/messages/count_tokens');
    assert.equal(request.headers['anthropic-beta'], 'x-2025');
    assert.equal(request.headers['x-api-key'], 'sk-ant-upstream');
    assert.equal(JSON.parse(request.body as string).model, 'claude-sonnet-4-5-20250929');
    assert.equal(counter.parseResponse({ input_tokens: 42 }, target), 42);
    assert.throws(() => counter.parseResponse({ tokens: 42 }, target), GatewayError);
  });

  test('a recorded message parses; usage sums cache reads and writes into input', () => {
    const answer = messages.parseResponse(JSON.parse(fixture('message-tool-use.json').toString()), target);
    assert.deepEqual(messages.usageOf(answer), {
      inputTokens: 3095,
      outputTokens: 503,
      cachedInputTokens: 1000,
    });
  });

  test('an answer that is not a message is an upstream_error', () => {
    assert.throws(() => messages.parseResponse({ type: 'completion' }, target), GatewayError);
  });
});

describe('anthropic messages: stream decoder', () => {
  test('passes every event on under its type, usage from message_start and message_delta', () => {
    const decoder = eventReaderOf(new AnthropicStreamDecoder('anthropic', 'public-claude'));
    const events = decodeAll(decoder, recorded);
    assert.deepEqual(
      events.slice(0, 3).map((e) => e.event),
      ['message_start', 'content_block_start', 'ping'],
    );
    assert.deepEqual(
      events.slice(-2).map((e) => e.event),
      ['message_delta', 'message_stop'],
    );
    assert.equal(events.length, 30);
    assert.deepEqual(decoder.usage(), { inputTokens: 600, outputTokens: 89, cachedInputTokens: 128 });
  });

  test('a stream that ends before message_stop fails in finish()', () => {
    const decoder = eventReaderOf(new AnthropicStreamDecoder('anthropic', 'public-claude'));
    decoder.push(recorded.subarray(0, recorded.indexOf('event: message_stop')));
    assert.throws(
      () => decoder.finish(),
      (e: unknown) => e instanceof GatewayError && e.code === 'upstream_error',
    );
  });

  test('an error event is raised, classified, without provider wording in public', () => {
    const decoder = eventReaderOf(new AnthropicStreamDecoder('anthropic', 'public-claude'));
    decoder.push(recorded.subarray(0, recorded.indexOf('event: content_block_stop')));
    const error = Buffer.from(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    );
    assert.throws(
      () => decoder.push(error),
      (e: unknown) =>
        e instanceof GatewayError &&
        e.code === 'upstream_overloaded' &&
        e.anthropicType === 'overloaded_error' &&
        e.retryable &&
        (e.detail as { providerMessage: string }).providerMessage === 'Overloaded',
    );
  });

  test('unknown event types pass through untouched', () => {
    const decoder = eventReaderOf(new AnthropicStreamDecoder('anthropic', 'public-claude'));
    const events = decoder.push(Buffer.from('event: future_event\ndata: {"type":"future_event","x":1}\n\n'));
    assert.deepEqual(events, [{ event: 'future_event', data: { type: 'future_event', x: 1 } }]);
  });

  test('property: any split of the recorded stream decodes to the same events', () => {
    const whole = decodeAll(new AnthropicStreamDecoder('anthropic', 'public-claude'), recorded);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: recorded.length - 1 }), { maxLength: 40 }),
        (cuts) => {
          assert.deepEqual(
            decodeAll(new AnthropicStreamDecoder('anthropic', 'public-claude'), recorded, cuts),
            whole,
          );
        },
      ),
    );
  });
});
