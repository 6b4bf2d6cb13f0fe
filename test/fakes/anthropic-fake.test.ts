import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import { getProviderAdapter } from '../../src/providers/registry.ts';
import type { DeploymentTarget } from '../../src/providers/types.ts';
import { AnthropicFake } from './anthropic-fake.ts';
import { decodeBodySettled } from './decode-stream.ts';
import { readAnswer, sendUpstream } from './upstream-call.ts';

const KEY = 'sk-ant-fake';
const fake = new AnthropicFake({ apiKey: KEY });
let client: Anthropic;
let target: DeploymentTarget;
const provider = getProviderAdapter('anthropic')!;
const adapter = provider.operations.messages!;
const tools = [
  { name: 'get_weather', description: 'Weather', input_schema: { type: 'object' as const, properties: {} } },
];

before(async () => {
  await fake.start();
  client = new Anthropic({ apiKey: KEY, baseURL: fake.url, maxRetries: 0 });
  target = {
    id: 'dep_a',
    provider: 'anthropic',
    upstreamModel: 'claude-fake',
    apiKey: KEY,
    baseUrl: fake.url,
    providerOptions: {},
  };
});
after(() => fake.close());
beforeEach(() => fake.reset());

async function streamThrough(body: Record<string, unknown>) {
  const answer = await sendUpstream(adapter.buildRequest({ target, body, stream: true }));
  const decoder = adapter.createStreamDecoder!(target, { body, publicModel: 'public-claude' });
  const { events, failure } = await decodeBodySettled(decoder, answer.body);
  return { events, decoder, failure };
}

describe('Anthropic fake through the official SDK (wire-format fidelity)', () => {
  test('messages: JSON answer echoes the last user text; headers recorded', async () => {
    const message = await client.messages.create({
      model: 'claude-fake',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'good morning' }],
    });
    assert.deepEqual(message.content, [{ type: 'text', text: 'echo: good morning' }]);
    assert.equal(message.stop_reason, 'end_turn');
    const headers = fake.lastRequest?.headers;
    assert.ok(headers?.['x-api-key'] === KEY || headers?.authorization === `Bearer ${KEY}`);
    assert.equal(typeof fake.lastRequest?.headers['anthropic-version'], 'string');
  });

  test('messages: a streamed tool_use assembles in the SDK with its parsed input and usage', async () => {
    const final = await client.messages
      .stream({
        model: 'claude-fake',
        max_tokens: 100,
        tools,
        messages: [{ role: 'user', content: 'use a tool for Paris' }],
      })
      .finalMessage();
    assert.equal(final.stop_reason, 'tool_use');
    const block = final.content[0];
    assert.equal(block.type, 'tool_use');
    assert.deepEqual(block.type === 'tool_use' && block.input, { echo: 'use a tool for Paris' });
    assert.equal(final.usage.output_tokens, 10);
  });

  test('a tool_result turn answers with its content; stop sequences and max_tokens stop the text', async () => {
    const message = await client.messages.create({
      model: 'claude-fake',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
      ],
    });
    assert.deepEqual(message.content, [{ type: 'text', text: 'tool result: sunny' }]);
    const stopped = await client.messages.create({
      model: 'claude-fake',
      max_tokens: 100,
      stop_sequences: ['three'],
      messages: [{ role: 'user', content: 'one two three four' }],
    });
    assert.equal(stopped.stop_reason, 'stop_sequence');
    assert.equal(stopped.stop_sequence, 'three');
    const cut = await client.messages.create({
      model: 'claude-fake',
      max_tokens: 2,
      messages: [{ role: 'user', content: 'one two three' }],
    });
    assert.equal(cut.stop_reason, 'max_tokens');
  });

  test('a wrong key is 401 authentication_error', async () => {
    const stranger = new Anthropic({ apiKey: 'wrong', baseURL: fake.url, maxRetries: 0 });
    await assert.rejects(
      stranger.messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
      { status: 401 },
    );
  });
});

describe('Anthropic adapter against the fake over HTTP', () => {
  test('stream: events in order, usage from message_start and message_delta', async () => {
    const { events, decoder, failure } = await streamThrough({
      model: 'x',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'a b' }],
    });
    assert.equal(failure, null);
    assert.deepEqual(
      events.map((e) => e.event),
      [
        'message_start',
        'ping',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
    assert.deepEqual(decoder.usage(), { inputTokens: 2, outputTokens: 3 });
    assert.equal((fake.lastRequest!.body as { model: string }).model, 'claude-fake');
  });

  test('an overloaded error event injected mid-stream is raised as a retryable upstream_overloaded', async () => {
    const error = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    fake.faultNextStream({
      afterEvents: 3,
      action: { raw: `event: error\ndata: ${JSON.stringify(error)}\n\n` },
    });
    const { failure } = await streamThrough({
      model: 'x',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'a b c' }],
    });
    assert.ok(failure instanceof GatewayError && failure.code === 'upstream_overloaded' && failure.retryable);
  });

  test('a stream cut before message_stop fails in finish()', async () => {
    fake.faultNextStream({ afterEvents: 5, action: 'end' });
    const { failure } = await streamThrough({
      model: 'x',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'a b c' }],
    });
    assert.ok(failure instanceof GatewayError && failure.code === 'upstream_error');
  });

  test('injected 529 overloaded and 400 prompt-too-long are classified', async () => {
    fake.enqueue({
      status: 529,
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    });
    const first = await sendUpstream(
      adapter.buildRequest({ target, body: { model: 'x', max_tokens: 5, messages: [] }, stream: false }),
    );
    assert.equal(
      provider.classifyError(first.status, await readAnswer(first), first.headers).code,
      'upstream_overloaded',
    );
    const small = await new AnthropicFake({ contextWindow: 2 }).start();
    try {
      const body = { model: 'x', max_tokens: 5, messages: [{ role: 'user', content: 'far too many words' }] };
      const second = await sendUpstream(
        adapter.buildRequest({ target: { ...target, baseUrl: small.url }, body, stream: false }),
      );
      assert.equal(
        provider.classifyError(second.status, await readAnswer(second), second.headers).code,
        'context_length_exceeded',
      );
    } finally {
      await small.close();
    }
  });

  test('a request without anthropic-version is refused as the real API does', async () => {
    const response = await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', max_tokens: 5, messages: [] }),
    });
    assert.equal(response.status, 400);
    assert.deepEqual(await response.json(), {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
    });
  });
});
