/**
 * The official `openai` client on an Anthropic deployment (chat-via-messages, and Responses
 * through it): what the Anthropic fake receives, and what the client reads back (issue 23).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { recordedText } from '../fakes/recorded.ts';
import { lastJson, openaiClient, startUpstreams, type Upstreams } from './support.ts';

type Json = Record<string, unknown>;

const fixture = (name: string): string => recordedText('anthropic', name);

describe('openai client on an Anthropic deployment: fidelity', () => {
  let up: Upstreams;
  let client: OpenAI;
  before(async () => {
    up = await startUpstreams();
    client = openaiClient(up.gw, up.key);
  });
  after(() => up?.close());

  const sent = () => lastJson(up.anthropic);
  /** The next answer: a recorded stream. */
  const enqueueStream = (name: string) =>
    up.anthropic.enqueue({
      status: 200,
      body: fixture(name),
      headers: { 'content-type': 'text/event-stream' },
    });

  it("reasoning_effort asks for a thinking budget, and Claude's thinking comes back as reasoning_content", async () => {
    up.anthropic.enqueue({ status: 200, body: JSON.parse(fixture('message-thinking-signature.json')) });
    const completion = await client.chat.completions.create({
      model: 'claude',
      reasoning_effort: 'low',
      temperature: 0.2,
      messages: [{ role: 'user', content: 'Are there infinitely many primes 3 mod 4?' }],
    });
    const body = sent();
    assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 1024 });
    assert.equal(body.temperature, undefined);
    // No max_tokens from the client: Claude Sonnet 4.5's output limit, from the catalog.
    assert.equal(body.max_tokens, 64_000);
    const message = completion.choices[0].message as (typeof completion.choices)[0]['message'] & Json;
    assert.equal(
      message.reasoning_content,
      'To approach this, let me think about what I know about prime numbers...',
    );
    assert.equal((message.thinking_blocks as Json[]).length, 2);
    assert.equal(message.content, 'Yes, there are infinitely many prime numbers such that n mod 4 = 3.');
  });

  it('streams thinking as reasoning_content deltas', async () => {
    enqueueStream('messages-stream-thinking-signature.sse');
    const stream = await client.chat.completions.create({
      model: 'claude',
      reasoning_effort: 'medium',
      stream: true,
      messages: [{ role: 'user', content: 'GCD of 1071 and 462?' }],
    });
    let reasoning = '';
    let text = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as (Json & { content?: string | null }) | undefined;
      reasoning += (delta?.reasoning_content as string | undefined) ?? '';
      text += delta?.content ?? '';
    }
    assert.deepEqual(sent().thinking, { type: 'enabled', budget_tokens: 8192 });
    assert.match(reasoning, /^I need to find the GCD/);
    assert.equal(text, 'The greatest common divisor of 1071 and 462 is **21**.');
  });

  it('Responses reasoning.effort reaches Claude as thinking, and thinking comes back as a reasoning item', async () => {
    up.anthropic.enqueue({ status: 200, body: JSON.parse(fixture('message-thinking-signature.json')) });
    const response = await client.responses.create({
      model: 'claude',
      reasoning: { effort: 'high' },
      input: 'Are there infinitely many primes 3 mod 4?',
    });
    assert.deepEqual(sent().thinking, { type: 'enabled', budget_tokens: 24_576 });
    assert.deepEqual(
      response.output.map((item) => item.type),
      ['reasoning', 'message'],
    );
    assert.equal(response.output_text, 'Yes, there are infinitely many prime numbers such that n mod 4 = 3.');
  });

  it('a stateless Responses tool loop (Codex) gives Claude its signed thinking back, so thinking stays on', async () => {
    const tools: OpenAI.Responses.Tool[] = [
      {
        type: 'function',
        name: 'get_weather',
        strict: false,
        parameters: { type: 'object', properties: {} },
      },
    ];
    const recorded = JSON.parse(fixture('message-thinking-then-tool-use.json')) as { content: Json[] };
    up.anthropic.enqueue({ status: 200, body: recorded });
    const request = {
      model: 'claude',
      store: false,
      include: ['reasoning.encrypted_content' as const],
      reasoning: { effort: 'medium' as const },
      tools,
    };
    const first = await client.responses.create({ ...request, input: 'weather in Paris?' });
    const reasoning = first.output.find((item) => item.type === 'reasoning');
    assert.ok(reasoning?.encrypted_content, 'the reasoning item carries the signed thinking');
    const call = first.output.find((item) => item.type === 'function_call');
    assert.ok(call?.type === 'function_call');
    await client.responses.create({
      ...request,
      input: [
        { role: 'user', content: 'weather in Paris?' },
        ...first.output,
        { type: 'function_call_output', call_id: call.call_id, output: '18C' },
      ] as OpenAI.Responses.ResponseInputItem[],
    });
    const body = sent();
    assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 8192 });
    // The signed thinking block and the call, as message-thinking-then-tool-use.json recorded them.
    assert.deepEqual((body.messages as Json[])[1], { role: 'assistant', content: recorded.content });
  });

  it('temperature with top_p sends temperature only; empty assistant content is not sent; strict tools stay', async () => {
    await client.chat.completions.create({
      model: 'claude',
      max_tokens: 50,
      temperature: 0.4,
      top_p: 0.9,
      tools: [
        {
          type: 'function',
          function: {
            name: 'lookup',
            strict: true,
            parameters: { type: 'object', properties: {}, additionalProperties: false },
          },
        },
      ],
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: '' },
        {
          role: 'user',
          content: [
            { type: 'text', text: '' },
            { type: 'text', text: 'second' },
          ],
        },
      ],
    });
    const body = sent();
    assert.equal(body.temperature, 0.4);
    assert.equal('top_p' in body, false);
    assert.equal((body.tools as Json[])[0].strict, true);
    assert.deepEqual(body.messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ],
      },
    ]);
  });

  it('a mid-conversation system message stays in place; cache_control on parts reaches the blocks', async () => {
    const cache = { type: 'ephemeral' };
    await client.chat.completions.create({
      model: 'claude',
      max_tokens: 50,
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Long stable rules.', cache_control: cache }] },
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi' },
        { role: 'system', content: 'Switch to French.' },
        { role: 'user', content: [{ type: 'text', text: 'again', cache_control: cache }] },
      ] as OpenAI.ChatCompletionMessageParam[],
    });
    const body = sent();
    assert.deepEqual(body.system, [{ type: 'text', text: 'Long stable rules.', cache_control: cache }]);
    assert.deepEqual((body.messages as Json[])[2], {
      role: 'user',
      content: [
        { type: 'text', text: '<system>\nSwitch to French.\n</system>' },
        { type: 'text', text: 'again', cache_control: cache },
      ],
    });
  });

  it('json_schema reaches Claude as output_config.format; json_object answers JSON text', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false };
    const structured = await client.chat.completions.create({
      model: 'claude',
      max_tokens: 50,
      response_format: { type: 'json_schema', json_schema: { name: 'city', schema, strict: true } },
      messages: [{ role: 'user', content: 'city?' }],
    });
    assert.equal(structured.choices[0].finish_reason, 'stop');
    assert.deepEqual(sent().output_config, { format: { type: 'json_schema', schema } });

    const json = await client.chat.completions.create({
      model: 'claude',
      max_tokens: 50,
      response_format: { type: 'json_object' },
      messages: [{ role: 'user', content: 'a JSON object please' }],
    });
    assert.deepEqual(sent().tool_choice, { type: 'tool', name: 'json_response' });
    assert.deepEqual(JSON.parse(json.choices[0].message.content ?? ''), { echo: 'a JSON object please' });
    assert.equal(json.choices[0].finish_reason, 'stop');
  });

  it('a paused turn (pause_turn) is unfinished, `length`, and sent back it reaches Claude as the turn to resume', async () => {
    up.anthropic.enqueue({ status: 200, body: JSON.parse(fixture('message-pause-turn.json')) });
    const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'latest release?' };
    const paused = await client.chat.completions.create({ model: 'claude', messages: [question] });
    assert.equal(paused.choices[0].finish_reason, 'length');
    const partial = "I'll search for the latest release notes.The first result lists";
    assert.equal(paused.choices[0].message.content, partial);
    await client.chat.completions.create({
      model: 'claude',
      messages: [question, paused.choices[0].message as OpenAI.ChatCompletionMessageParam],
    });
    assert.deepEqual((sent().messages as Json[]).at(-1), {
      role: 'assistant',
      content: [{ type: 'text', text: partial }],
    });
  });

  it('a streamed paused turn ends with finish_reason `length`; server tool blocks stream nothing', async () => {
    enqueueStream('messages-stream-pause-turn.sse');
    const stream = await client.chat.completions.create({
      model: 'claude',
      stream: true,
      messages: [{ role: 'user', content: 'latest release?' }],
    });
    let text = '';
    const finishes: unknown[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
      assert.equal(chunk.choices[0]?.delta.tool_calls, undefined);
    }
    assert.equal(text, "I'll search for the latest release notes. The first result lists");
    assert.deepEqual(finishes, ['length']);
  });

  it('a paused turn reaches a Responses client as an incomplete response, streamed or not', async () => {
    up.anthropic.enqueue({ status: 200, body: JSON.parse(fixture('message-pause-turn.json')) });
    const response = await client.responses.create({ model: 'claude', input: 'latest release?' });
    assert.equal(response.status, 'incomplete');
    assert.deepEqual(response.incomplete_details, { reason: 'max_output_tokens' });

    enqueueStream('messages-stream-pause-turn.sse');
    const stream = await client.responses.create({ model: 'claude', input: 'latest release?', stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    assert.equal(types.at(-1), 'response.incomplete');
  });
});
