import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { ChatFunctionTool, ChatMessage } from '../../../formats/chat-completions/wire.ts';
import type { AnthropicMessageParam, AnthropicMessagesRequest } from '../../../formats/messages/wire.ts';
import type { StreamEvent } from '../../types.ts';
import { CLEARED_TOOL_RESULT } from './context-management.ts';
import { messagesViaChat } from './translator.ts';

/** What Claude Code sends that a Chat upstream has no field for, and how each is served. */

/** A conversation with `count` tool round trips of `Read` (and one of `Bash`, excluded below). */
function toolLoop(count: number): AnthropicMessageParam[] {
  const messages: AnthropicMessageParam[] = [{ role: 'user', content: 'read the files' }];
  for (let i = 0; i < count; i++) {
    const name = i === 0 ? 'Bash' : 'Read';
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name, input: { i } }] });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `file ${i}` }],
    });
  }
  return messages;
}

function request(extra: Partial<AnthropicMessagesRequest>): AnthropicMessagesRequest {
  return { model: 'claude-public', max_tokens: 32_000, messages: toolLoop(5), ...extra };
}

function toolContents(messages: ChatMessage[]): unknown[] {
  return messages.filter((message) => message.role === 'tool').map((message) => message.content);
}

function callArguments(messages: ChatMessage[]): string[] {
  return messages.flatMap((message) =>
    message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.function.arguments) : [],
  );
}

describe('messages via chat: what Claude Code sends', () => {
  test('clear_tool_uses clears all but the last `keep` results, oldest first, sparing excluded tools', () => {
    const chat = messagesViaChat.request(
      request({
        context_management: {
          edits: [
            { type: 'clear_thinking_20251015', keep: 'all' },
            {
              type: 'clear_tool_uses_20250919',
              trigger: { type: 'tool_uses', value: 4 },
              keep: { type: 'tool_uses', value: 2 },
              exclude_tools: ['Bash'],
              clear_tool_inputs: true,
            },
          ],
        },
      }),
    );
    assert.deepEqual(toolContents(chat.messages), [
      'file 0',
      CLEARED_TOOL_RESULT,
      CLEARED_TOOL_RESULT,
      'file 3',
      'file 4',
    ]);
    assert.deepEqual(callArguments(chat.messages), ['{"i":0}', '{}', '{}', '{"i":3}', '{"i":4}']);
    assert.equal((chat as Record<string, unknown>).context_management, undefined);
  });

  test('below its trigger (default 100,000 input tokens) or its clear_at_least, the edit changes nothing', () => {
    const untouched = ['file 0', 'file 1', 'file 2', 'file 3', 'file 4'];
    const byDefault = messagesViaChat.request(
      request({ context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] } }),
    );
    assert.deepEqual(toolContents(byDefault.messages), untouched);
    const tooLittle = messagesViaChat.request(
      request({
        context_management: {
          edits: [
            {
              type: 'clear_tool_uses_20250919',
              trigger: { type: 'tool_uses', value: 1 },
              clear_at_least: { type: 'input_tokens', value: 5_000 },
            },
          ],
        },
      }),
    );
    assert.deepEqual(toolContents(tooLittle.messages), untouched);
  });

  test('an edit the gateway cannot reproduce is refused, naming it', () => {
    assert.throws(
      () =>
        messagesViaChat.request(request({ context_management: { edits: [{ type: 'compact_20260112' }] } })),
      (e: unknown) =>
        e instanceof GatewayError &&
        e.code === 'unsupported_parameter' &&
        e.param === 'context_management.edits[0]',
    );
  });

  test('max_tokens above the model output limit is clamped to it; below it is kept', () => {
    const target = { maxOutputTokens: 16_384, reasoning: false };
    assert.equal(messagesViaChat.request(request({}), target).max_completion_tokens, 16_384);
    assert.equal(
      messagesViaChat.request(request({ max_tokens: 1_000 }), target).max_completion_tokens,
      1_000,
    );
    assert.equal(
      messagesViaChat.request(request({})).max_completion_tokens,
      32_000,
      'unknown limit: as asked',
    );
  });

  test('a deferred tool is offered once a tool_reference names it; the reference reads as text', () => {
    const tools = [
      { name: 'ToolSearch', input_schema: { type: 'object' } },
      { name: 'DeferredToolPlaceholder', input_schema: { type: 'object' }, defer_loading: true },
      { name: 'NotebookEdit', input_schema: { type: 'object' }, defer_loading: true },
    ];
    const names = (body: AnthropicMessagesRequest) =>
      (messagesViaChat.request(body).tools ?? []).map((tool) => (tool as ChatFunctionTool).function.name);
    assert.deepEqual(names(request({ tools })), ['ToolSearch']);
    const messages: AnthropicMessageParam[] = [
      { role: 'user', content: 'edit the notebook' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 's1', name: 'ToolSearch', input: {} }] },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 's1',
            content: [{ type: 'tool_reference', tool_name: 'NotebookEdit' }],
          },
        ],
      },
    ];
    assert.deepEqual(names(request({ tools, messages })), ['ToolSearch', 'NotebookEdit']);
    const chat = messagesViaChat.request(request({ tools, messages }));
    assert.deepEqual(toolContents(chat.messages), ['Tool NotebookEdit is now available.']);
  });

  test('a tool call whose first delta has no name opens its block when the name comes', () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null): StreamEvent => ({
      data: {
        id: 'c1',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'm',
        choices: [{ index: 0, delta, finish_reason: finish }],
      },
    });
    const stream = messagesViaChat.createStreamTranslator(request({}));
    const out = [
      chunk({ role: 'assistant' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { arguments: '{"a"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'Bash', arguments: ':1}' } }] }),
      chunk({}, 'tool_calls'),
      { data: '[DONE]' },
    ].flatMap((event) => stream.push(event));
    const starts = out.filter((event) => (event.data as { type: string }).type === 'content_block_start');
    assert.deepEqual(
      starts.map((event) => (event.data as { content_block: unknown }).content_block),
      [{ type: 'tool_use', id: 'call_1', name: 'Bash', input: {} }],
    );
    const json = out
      .map((event) => (event.data as { delta?: { partial_json?: string } }).delta?.partial_json)
      .filter((part) => part !== undefined);
    assert.deepEqual(json, ['{"a":1}'], 'what came before the name, with the rest of its chunk');
  });
});
