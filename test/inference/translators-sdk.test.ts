/**
 * The translators checked by the official clients: a minimal stand-in for the pipeline (plan,
 * translate, send, decode, translate back) serves each client format from a fake upstream of the
 * other format, and the official SDKs parse what comes out, JSON and streamed.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { formatSseEvent } from '../../src/formats/sse.ts';
import { planOperation } from '../../src/providers/registry.ts';
import type { DeploymentTarget, Operation } from '../../src/providers/types.ts';
import { eventReaderOf } from '../../src/upstream/event-reader.ts';
import { AnthropicFake } from '../fakes/anthropic-fake.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { readAnswer, sendUpstream } from '../fakes/upstream-call.ts';

const openaiUpstream = new OpenAIFake();
const anthropicUpstream = new AnthropicFake();
let gateway: Server;
let gatewayUrl = '';

const ROUTES: Record<string, { operation: Operation; target: () => DeploymentTarget }> = {
  '/v1/messages': {
    operation: 'messages',
    target: () => ({
      id: 'd1',
      provider: 'openai',
      upstreamModel: 'gpt-4o-mini',
      apiKey: 'k',
      baseUrl: openaiUpstream.baseUrl,
      providerOptions: {},
    }),
  },
  '/v1/chat/completions': {
    operation: 'chat.completions',
    target: () => ({
      id: 'd2',
      provider: 'anthropic',
      upstreamModel: 'claude-fake',
      apiKey: 'k',
      baseUrl: anthropicUpstream.url,
      providerOptions: {},
    }),
  },
  '/v1/responses': {
    operation: 'responses',
    target: () => ({
      id: 'd3',
      provider: 'openai-compatible',
      upstreamModel: 'llama-fake',
      apiKey: null,
      baseUrl: openaiUpstream.baseUrl,
      providerOptions: {},
    }),
  },
};

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const route = ROUTES[new URL(req.url ?? '/', 'http://x').pathname];
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const clientBody = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
  const target = route.target();
  const plan = planOperation(target.provider, route.operation);
  assert.equal(plan?.kind, 'translated');
  if (plan?.kind !== 'translated') return;
  const stream = clientBody.stream === true;
  const upstreamBody = plan.translator.request(clientBody);
  const answer = await sendUpstream(plan.adapter.buildRequest({ target, body: upstreamBody, stream }));
  assert.equal(answer.status, 200);
  if (!stream) {
    const parsed = plan.adapter.parseResponse(await readAnswer(answer), target);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(plan.translator.response(parsed, clientBody)));
    return;
  }
  const decoder = eventReaderOf(
    plan.adapter.createStreamDecoder!(target, { body: upstreamBody, publicModel: 'public-model' }),
  );
  const translator = plan.translator.createStreamTranslator(clientBody);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for await (const chunk of answer.body) {
    for (const event of decoder.push(chunk as Buffer))
      for (const out of translator.push(event)) res.write(formatSseEvent(out));
  }
  for (const event of decoder.finish())
    for (const out of translator.push(event)) res.write(formatSseEvent(out));
  for (const out of translator.finish()) res.write(formatSseEvent(out));
  res.end();
}

before(async () => {
  await openaiUpstream.start();
  await anthropicUpstream.start();
  gateway = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: { message: String(error), type: 'server_error', param: null, code: null } }),
      );
    });
  });
  gateway.listen(0, '127.0.0.1');
  await new Promise((resolve) => gateway.once('listening', resolve));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});
after(async () => {
  gateway.closeAllConnections();
  await new Promise((resolve) => gateway.close(resolve));
  await openaiUpstream.close();
  await anthropicUpstream.close();
});

const weatherTool = {
  name: 'get_weather',
  description: 'Weather',
  input_schema: { type: 'object' as const, properties: {} },
};

describe('messages via chat, read by the Anthropic SDK', () => {
  const anthropic = (): Anthropic => new Anthropic({ apiKey: 'k', baseURL: gatewayUrl, maxRetries: 0 });

  test('JSON: text answer', async () => {
    const message = await anthropic().messages.create({
      model: 'public',
      max_tokens: 100,
      system: 'be brief',
      messages: [{ role: 'user', content: 'hello' }],
    });
    assert.deepEqual(message.content, [{ type: 'text', text: 'echo: hello' }]);
    assert.equal(message.stop_reason, 'end_turn');
    assert.equal(message.usage.output_tokens, 2);
  });

  test('stream: text deltas assemble into the final message with usage', async () => {
    const stream = anthropic().messages.stream({
      model: 'public',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'one two three' }],
    });
    const final = await stream.finalMessage();
    assert.equal(final.content.length, 1);
    assert.equal(final.content[0].type === 'text' && final.content[0].text, 'echo: one two three');
    assert.equal(final.stop_reason, 'end_turn');
    assert.equal(final.usage.input_tokens, 3);
    assert.equal(final.usage.output_tokens, 4);
  });

  test('stream: a tool_use block with its input rebuilt from input_json_delta', async () => {
    const final = await anthropic()
      .messages.stream({
        model: 'public',
        max_tokens: 100,
        tools: [weatherTool],
        messages: [{ role: 'user', content: 'use the tool' }],
      })
      .finalMessage();
    assert.equal(final.stop_reason, 'tool_use');
    const block = final.content[0];
    assert.equal(block.type, 'tool_use');
    assert.deepEqual(block.type === 'tool_use' && [block.name, block.input], [
      'get_weather',
      { echo: 'use the tool' },
    ]);
  });
});

describe('chat via messages, read by the OpenAI SDK', () => {
  const openai = (): OpenAI => new OpenAI({ apiKey: 'k', baseURL: `${gatewayUrl}/v1`, maxRetries: 0 });
  const tools = [
    { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object' } } },
  ];

  test('JSON: text answer with usage', async () => {
    const completion = await openai().chat.completions.create({
      model: 'public',
      messages: [{ role: 'user', content: 'hi there' }],
    });
    assert.equal(completion.choices[0].message.content, 'echo: hi there');
    assert.equal(completion.choices[0].finish_reason, 'stop');
    assert.equal(completion.usage?.total_tokens, 5);
    assert.equal((anthropicUpstream.lastRequest!.body as { max_tokens: number }).max_tokens, 4096);
  });

  test('stream: a tool call assembles in the SDK, and the usage chunk arrives when asked', async () => {
    const final = await openai()
      .chat.completions.stream({
        model: 'public',
        messages: [{ role: 'user', content: 'a tool please' }],
        tools,
        stream_options: { include_usage: true },
      })
      .finalChatCompletion();
    const call = final.choices[0].message.tool_calls?.[0];
    assert.deepEqual(call?.type === 'function' && [call.function.name, JSON.parse(call.function.arguments)], [
      'get_weather',
      { echo: 'a tool please' },
    ]);
    assert.equal(final.choices[0].finish_reason, 'tool_calls');
    assert.equal(final.usage?.completion_tokens, 10);
  });

  test('stream: text deltas', async () => {
    const final = await openai()
      .chat.completions.stream({ model: 'public', messages: [{ role: 'user', content: 'stream me' }] })
      .finalChatCompletion();
    assert.equal(final.choices[0].message.content, 'echo: stream me');
  });
});

describe('responses via chat, read by the OpenAI SDK', () => {
  const openai = (): OpenAI => new OpenAI({ apiKey: 'k', baseURL: `${gatewayUrl}/v1`, maxRetries: 0 });

  test('JSON: output_text and usage', async () => {
    const response = await openai().responses.create({
      model: 'public',
      input: 'hello responses',
      instructions: 'be kind',
    });
    assert.equal(response.output_text, 'echo: hello responses');
    assert.equal(response.status, 'completed');
    assert.equal(response.usage?.output_tokens, 3);
  });

  test('stream: typed events assemble into the final response', async () => {
    const stream = openai().responses.stream({ model: 'public', input: 'stream this please' });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    assert.equal(final.output_text, 'echo: stream this please');
    assert.equal(deltas.join(''), 'echo: stream this please');
    assert.equal(final.usage?.total_tokens, 7);
  });

  test('stream: a function call item with its arguments', async () => {
    const final = await openai()
      .responses.stream({
        model: 'public',
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'need a tool' }] }],
        tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object' }, strict: false }],
      })
      .finalResponse();
    const item = final.output[0];
    assert.equal(item.type, 'function_call');
    assert.deepEqual(item.type === 'function_call' && [item.name, JSON.parse(item.arguments)], [
      'lookup',
      { echo: 'need a tool' },
    ]);
  });
});
