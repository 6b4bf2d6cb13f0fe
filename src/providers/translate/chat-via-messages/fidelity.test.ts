/**
 * What a Chat client's request keeps on its way to Claude (issue 23): reasoning, sampling, empty
 * content, max_tokens, strict tools, mid-conversation instructions, prompt caching, JSON mode; and
 * what Claude's thinking becomes for the Chat client (recorded answers).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { ChatCompletionRequest } from '../../../formats/chat-completions/wire.ts';
import type { AnthropicMessage } from '../../../formats/messages/wire.ts';
import { SSE_DONE } from '../../../formats/sse.ts';
import { eventReaderOf } from '../../../upstream/event-reader.ts';
import { AnthropicStreamDecoder } from '../../anthropic/claude-stream-events.ts';
import { CLAUDE_THINKING_BUDGETS } from '../../anthropic/claude-thinking-budget.ts';
import { JSON_MODE_TOOL } from './json-mode-tool.ts';
import { createChatViaMessages } from './translator.ts';

const translator = createChatViaMessages({ nowSeconds: () => 1_750_000_000 });
const base: ChatCompletionRequest = { model: 'claude', messages: [{ role: 'user', content: 'Hello' }] };
const claude = { maxOutputTokens: 64_000, reasoning: true };

function fixture(name: string): Buffer {
  return readFileSync(new URL(`../../anthropic/fixtures/${name}`, import.meta.url));
}

const TOOL_LOOP: ChatCompletionRequest['messages'] = [
  { role: 'user', content: 'Weather in Paris?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{}' } }],
  },
  { role: 'tool', tool_call_id: 'toolu_1', content: '18C' },
];

describe('chat via messages: reasoning_effort becomes a thinking budget', () => {
  test('each effort asks for its documented budget; none asks for nothing', () => {
    for (const [effort, budget] of Object.entries(CLAUDE_THINKING_BUDGETS)) {
      const request = translator.request({ ...base, reasoning_effort: effort }, claude);
      assert.deepEqual(request.thinking, { type: 'enabled', budget_tokens: budget }, effort);
      assert.equal(request.max_tokens, 64_000);
    }
    assert.equal(translator.request({ ...base, reasoning_effort: 'none' }, claude).thinking, undefined);
    assert.throws(
      () => translator.request({ ...base, reasoning_effort: 'extreme' }),
      (e: unknown) => e instanceof GatewayError && e.param === 'reasoning_effort',
    );
  });

  test('the budget stays below max_tokens, and thinking is left off below the smallest budget', () => {
    const capped = translator.request({ ...base, reasoning_effort: 'high', max_completion_tokens: 5000 });
    assert.deepEqual(capped.thinking, { type: 'enabled', budget_tokens: 4999 });
    const tooSmall = translator.request({ ...base, reasoning_effort: 'low', max_tokens: 1024 });
    assert.equal(tooSmall.thinking, undefined);
  });

  test('with thinking, temperature and a top_p below 0.95 are not sent', () => {
    const hot = translator.request({ ...base, reasoning_effort: 'low', temperature: 0.2 }, claude);
    assert.equal(hot.temperature, undefined);
    const narrow = translator.request({ ...base, reasoning_effort: 'low', top_p: 0.5 }, claude);
    assert.equal(narrow.top_p, undefined);
    const wide = translator.request({ ...base, reasoning_effort: 'low', top_p: 0.97 }, claude);
    assert.equal(wide.top_p, 0.97);
  });

  test('a forced tool or a tool turn without its thinking blocks leaves thinking off', () => {
    const tools = [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }];
    const forced = translator.request(
      { ...base, tools, tool_choice: 'required', reasoning_effort: 'medium' },
      claude,
    );
    assert.equal(forced.thinking, undefined);
    const loop = translator.request({ ...base, messages: TOOL_LOOP, reasoning_effort: 'medium' }, claude);
    assert.equal(loop.thinking, undefined);
  });

  test('thinking_blocks kept by the client go back first in their turn, and thinking stays on', () => {
    const thinking = { type: 'thinking' as const, thinking: 'Check the tool.', signature: 'sig-1' };
    const messages = structuredClone(TOOL_LOOP);
    Object.assign(messages[1], { reasoning_content: 'Check the tool.', thinking_blocks: [thinking] });
    const request = translator.request({ ...base, messages, reasoning_effort: 'medium' }, claude);
    assert.deepEqual(request.thinking, { type: 'enabled', budget_tokens: 8192 });
    assert.deepEqual(request.messages[1].content, [
      thinking,
      { type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} },
    ]);
  });
});

describe('chat via messages: requests Claude would refuse are not sent', () => {
  test('temperature and top_p together: temperature is sent, top_p is not', () => {
    const request = translator.request({ ...base, temperature: 0.3, top_p: 0.9 });
    assert.equal(request.temperature, 0.3);
    assert.equal(request.top_p, undefined);
    assert.equal(translator.request({ ...base, top_p: 0.9 }).top_p, 0.9);
  });

  test('empty assistant content and empty text parts are never sent as empty blocks', () => {
    const request = translator.request({
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '' },
            { type: 'text', text: 'Hi' },
          ],
        },
        { role: 'assistant', content: '' },
        { role: 'assistant', content: [{ type: 'text', text: '' }] },
        { role: 'user', content: '' },
        { role: 'user', content: 'Again' },
      ],
    });
    assert.deepEqual(request.messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hi' },
          { type: 'text', text: 'Again' },
        ],
      },
    ]);
  });

  test("without max_tokens the model's output limit from the catalog is asked for", () => {
    assert.equal(translator.request(base, { maxOutputTokens: 64_000, reasoning: true }).max_tokens, 64_000);
    assert.equal(translator.request({ ...base, max_tokens: 300 }, claude).max_tokens, 300);
  });

  test('tools keep strict and their cache breakpoint', () => {
    const request = translator.request({
      ...base,
      tools: [
        {
          type: 'function',
          function: { name: 'f', parameters: { type: 'object' }, strict: true },
          cache_control: { type: 'ephemeral' },
        },
      ],
    });
    const inputSchema = { type: 'object', additionalProperties: false };
    assert.deepEqual(request.tools, [
      { name: 'f', input_schema: inputSchema, strict: true, cache_control: { type: 'ephemeral' } },
    ]);
  });

  test('a system message mid-conversation stays in place as marked user text', () => {
    const request = translator.request({
      ...base,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi.' },
        { role: 'system', content: 'Now answer in French.' },
        { role: 'user', content: 'How are you?' },
      ],
    });
    assert.deepEqual(request.system, [{ type: 'text', text: 'Be brief.' }]);
    assert.deepEqual(request.messages.slice(1), [
      { role: 'assistant', content: [{ type: 'text', text: 'Hi.' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: '<system>\nNow answer in French.\n</system>' },
          { type: 'text', text: 'How are you?' },
        ],
      },
    ]);
  });
});

describe('chat via messages: prompt caching survives (cache_control on parts)', () => {
  test('breakpoints on system, user text and image parts and tool messages reach the blocks', () => {
    const cache = { type: 'ephemeral' };
    const request = translator.request({
      ...base,
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Long rules.', cache_control: cache }] },
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' }, cache_control: cache },
            { type: 'text', text: 'Describe it.', cache_control: cache },
          ],
        },
        ...TOOL_LOOP.slice(1, 2),
        {
          role: 'tool',
          tool_call_id: 'toolu_1',
          content: [{ type: 'text', text: '18C', cache_control: cache }],
        },
      ],
    });
    assert.deepEqual(request.system, [{ type: 'text', text: 'Long rules.', cache_control: cache }]);
    assert.deepEqual(request.messages[0].content, [
      { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' }, cache_control: cache },
      { type: 'text', text: 'Describe it.', cache_control: cache },
    ]);
    assert.deepEqual(request.messages[2].content, [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: '18C', cache_control: cache },
    ]);
  });
});

describe('chat via messages: structured outputs and JSON mode', () => {
  test('json_object forces the JSON tool; with tools of its own it is a 400 naming response_format', () => {
    const request = translator.request({ ...base, response_format: { type: 'json_object' } });
    assert.deepEqual(request.tool_choice, { type: 'tool', name: JSON_MODE_TOOL });
    assert.deepEqual(
      request.tools?.map((t) => [t.name, t.input_schema]),
      [[JSON_MODE_TOOL, { type: 'object' }]],
    );
    const tools = [{ type: 'function', function: { name: 'f' } }];
    assert.throws(
      () => translator.request({ ...base, tools, response_format: { type: 'json_object' } }),
      (e: unknown) => e instanceof GatewayError && e.param === 'response_format',
    );
  });

  test('the recorded JSON-mode answer comes back as JSON text that ends with stop', () => {
    const answer = JSON.parse(fixture('message-json-mode-tool-use.json').toString()) as AnthropicMessage;
    const request: ChatCompletionRequest = { ...base, response_format: { type: 'json_object' } };
    const choice = translator.response(answer, request).choices[0];
    assert.deepEqual(JSON.parse(choice.message.content ?? ''), { city: 'Paris', temperature_c: 18 });
    assert.equal(choice.message.tool_calls, undefined);
    assert.equal(choice.finish_reason, 'stop');
  });

  test('a streamed JSON-mode answer streams the tool input as content and ends with stop', () => {
    const request: ChatCompletionRequest = {
      ...base,
      stream: true,
      response_format: { type: 'json_object' },
    };
    const stream = translator.createStreamTranslator(request);
    const ev = (type: string, fields: Record<string, unknown>) => ({
      event: type,
      data: { type, ...fields },
    });
    const events = [
      ev('message_start', {
        message: {
          id: 'msg_J',
          type: 'message',
          role: 'assistant',
          model: 'claude',
          content: [],
          stop_reason: null,
          usage: { input_tokens: 5 },
        },
      }),
      ev('content_block_start', {
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_J', name: JSON_MODE_TOOL, input: {} },
      }),
      ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"a":' } }),
      ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '1}' } }),
      ev('content_block_stop', { index: 0 }),
      ev('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 4 } }),
      ev('message_stop', {}),
    ];
    const chunks = events.flatMap((e) => stream.push(e)).filter((c) => c.data !== SSE_DONE);
    const choices = chunks.map((c) => (c.data as { choices: Array<Record<string, unknown>> }).choices[0]);
    const text = choices.map((c) => (c.delta as { content?: string }).content ?? '').join('');
    assert.equal(text, '{"a":1}');
    assert.equal(
      choices.some((c) => 'tool_calls' in (c.delta as object)),
      false,
    );
    assert.equal(choices.at(-1)?.finish_reason, 'stop');
  });
});

describe("chat via messages: Claude's thinking reaches the Chat client", () => {
  test('recorded thinking answer: reasoning_content and thinking_blocks with the signature', () => {
    const answer = JSON.parse(fixture('message-thinking-signature.json').toString()) as AnthropicMessage;
    const message = translator.response(answer, base).choices[0].message;
    assert.equal(message.content, 'Yes, there are infinitely many prime numbers such that n mod 4 = 3.');
    assert.equal(
      message.reasoning_content,
      'To approach this, let me think about what I know about prime numbers...',
    );
    assert.deepEqual(
      message.thinking_blocks?.map((block) => block.type),
      ['thinking', 'redacted_thinking'],
    );
    assert.match(
      String((message.thinking_blocks?.[0] as { signature: string } | undefined)?.signature),
      /^zbbJhb/,
    );
  });

  test('recorded thinking stream: reasoning_content deltas, then the signed block once, then text', () => {
    const decoder = eventReaderOf(new AnthropicStreamDecoder('anthropic', 'public-claude'));
    const stream = translator.createStreamTranslator({ ...base, stream: true });
    const bytes = fixture('messages-stream-thinking-signature.sse');
    const chunks = [...decoder.push(bytes), ...decoder.finish()].flatMap((e) => stream.push(e));
    let reasoning = '';
    let text = '';
    const blocks: unknown[] = [];
    for (const { data } of chunks) {
      if (data === SSE_DONE) continue;
      const delta = (data as { choices: Array<{ delta: Record<string, unknown> }> }).choices[0].delta;
      reasoning += (delta.reasoning_content as string | undefined) ?? '';
      text += (delta.content as string | undefined) ?? '';
      blocks.push(...((delta.thinking_blocks as unknown[] | undefined) ?? []));
    }
    assert.match(reasoning, /^I need to find the GCD[\s\S]*So GCD is 21\.$/);
    assert.equal(text, 'The greatest common divisor of 1071 and 462 is **21**.');
    assert.deepEqual(blocks, [
      {
        type: 'thinking',
        thinking: reasoning,
        signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
      },
    ]);
  });
});

describe('chat via messages: prompt caching for clients that mark nothing', () => {
  const long = 'lorem ipsum dolor sit amet '.repeat(400);
  const tool = { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } };

  test('a long prompt gets three marks: the last tool, the system prompt, the conversation end', () => {
    const request = translator.request({
      model: 'claude-public',
      messages: [
        { role: 'system', content: long },
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'first answer' },
        { role: 'user', content: 'second question' },
      ],
      tools: [tool, { ...tool, function: { ...tool.function, name: 'fetch' } }],
    });
    const marks = JSON.stringify(request).match(/"cache_control"/g) ?? [];
    assert.equal(marks.length, 3);
    assert.deepEqual(request.tools?.[1].cache_control, { type: 'ephemeral' });
    assert.deepEqual((request.system as Array<{ cache_control?: unknown }>)[0].cache_control, {
      type: 'ephemeral',
    });
    assert.deepEqual(request.messages.at(-1)?.content, [
      { type: 'text', text: 'second question', cache_control: { type: 'ephemeral' } },
    ]);
  });

  test('a short prompt, or one the client marked itself, gets no marks of the gateway', () => {
    const short = translator.request({
      model: 'claude-public',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.ok(!JSON.stringify(short).includes('cache_control'));
    const own = translator.request({
      model: 'claude-public',
      messages: [
        { role: 'system', content: [{ type: 'text', text: long, cache_control: { type: 'ephemeral' } }] },
        { role: 'user', content: 'question' },
      ],
      tools: [tool],
    } as never);
    assert.equal((JSON.stringify(own).match(/"cache_control"/g) ?? []).length, 1);
  });
});
