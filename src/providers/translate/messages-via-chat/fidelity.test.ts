/**
 * What an Anthropic client's ordinary turn keeps on its way to a Chat upstream (issue 23):
 * thinking, documents, images in tool results, top_k, prompt caching, the structured-outputs beta;
 * and what an upstream's reasoning becomes for the Anthropic client (recorded answers).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { UpstreamChatCompletion } from '../../../formats/chat-completions/wire.ts';
import type { AnthropicMessagesRequest } from '../../../formats/messages/wire.ts';
import { eventReaderOf } from '../../../upstream/event-reader.ts';
import { openAIChatAdapter } from '../../openai/openai-chat.ts';
import { OpenAIChatStreamDecoder } from '../../openai/openai-chat-stream-decoder.ts';
import { openAIEndpoint } from '../../openai/openai-endpoint.ts';
import { openAICompatibleEndpoint } from '../../openai-compatible/openai-compatible-endpoint.ts';
import type { DeploymentTarget } from '../../types.ts';
import { messagesViaChat } from './translator.ts';

const base: AnthropicMessagesRequest = {
  model: 'claude-public',
  max_tokens: 512,
  messages: [{ role: 'user', content: 'Hello' }],
};
const reasoner = { maxOutputTokens: 100_000, reasoning: true };
const PDF = 'JVBERi0xLjcKJeLjz9MK';

function fixture(name: string): Buffer {
  return readFileSync(new URL(`../../openai/fixtures/${name}`, import.meta.url));
}

describe('messages via chat: thinking becomes reasoning_effort', () => {
  test('enabled budgets map by threshold; adaptive leaves the effort to the model; disabled asks nothing', () => {
    const effort = (thinking: unknown, extra: Record<string, unknown> = {}) =>
      messagesViaChat.request({ ...base, thinking, ...extra }, reasoner).reasoning_effort;
    assert.equal(effort({ type: 'enabled', budget_tokens: 1024 }), 'low');
    assert.equal(effort({ type: 'enabled', budget_tokens: 4096 }), 'medium');
    assert.equal(effort({ type: 'enabled', budget_tokens: 16_384 }), 'high');
    assert.equal(effort({ type: 'adaptive' }), undefined);
    assert.equal(effort({ type: 'adaptive' }, { output_config: { effort: 'max' } }), 'high');
    assert.equal(effort({ type: 'disabled' }), undefined);
  });

  test('a target that does not reason gets no reasoning_effort', () => {
    const chat = messagesViaChat.request(
      { ...base, thinking: { type: 'enabled', budget_tokens: 2048 } },
      { maxOutputTokens: null, reasoning: false },
    );
    assert.equal('reasoning_effort' in chat, false);
  });
});

describe('messages via chat: documents and images in tool results', () => {
  test('a base64 PDF becomes a file part; text and content documents become text', () => {
    const chat = messagesViaChat.request({
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'document',
              source: { type: 'base64', media_type: 'application/pdf', data: PDF },
              title: 'spec.pdf',
            },
            {
              type: 'document',
              source: { type: 'text', media_type: 'text/plain', data: 'Plain notes.' },
              title: 'Notes',
            },
            {
              type: 'document',
              source: { type: 'content', content: [{ type: 'text', text: 'Chunk one.' }] },
            },
            { type: 'text', text: 'Summarise.' },
          ],
        },
      ],
    });
    assert.deepEqual(chat.messages[0].content, [
      { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'spec.pdf' } },
      { type: 'text', text: 'Notes\n\nPlain notes.' },
      { type: 'text', text: 'Chunk one.' },
      { type: 'text', text: 'Summarise.' },
    ]);
  });

  test('images in a tool result follow the tool message in a user message naming the call', () => {
    const chat = messagesViaChat.request({
      ...base,
      messages: [
        { role: 'user', content: 'Take a screenshot.' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_7', name: 'screenshot', input: {} }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_7',
              content: [
                { type: 'text', text: 'Captured.' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
              ],
            },
          ],
        },
      ],
    });
    assert.deepEqual(chat.messages.slice(2), [
      { role: 'tool', tool_call_id: 'toolu_7', content: 'Captured.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Attachments of tool result toolu_7:' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
    ]);
  });
});

describe('messages via chat: top_k, prompt caching, the structured-outputs beta', () => {
  test('top_k and cache_control pass into Chat; the OpenAI adapter drops them, a compatible server gets them', () => {
    const cache = { type: 'ephemeral' };
    const chat = messagesViaChat.request({
      ...base,
      top_k: 40,
      tools: [{ name: 'f', input_schema: { type: 'object' }, cache_control: cache }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: cache }] }],
    });
    assert.equal(chat.top_k, 40);
    const target: DeploymentTarget = {
      id: 'd',
      provider: 'openai',
      upstreamModel: 'gpt-5-mini',
      apiKey: 'sk-test',
      baseUrl: 'http://127.0.0.1:1/v1',
      providerOptions: {},
    };
    const sent = (endpoint: typeof openAIEndpoint) =>
      JSON.parse(
        String(openAIChatAdapter(endpoint).buildRequest({ target, body: chat, stream: false }).body),
      );
    const openai = sent(openAIEndpoint);
    assert.equal('top_k' in openai, false);
    assert.deepEqual(openai.messages, [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
    assert.equal('cache_control' in openai.tools[0], false);
    const compatible = sent(openAICompatibleEndpoint);
    assert.equal(compatible.top_k, 40);
    assert.deepEqual(compatible.messages[0].content[0].cache_control, cache);
    assert.deepEqual(compatible.tools[0].cache_control, cache);
  });

  test('cache_control on system, text, image, tool result and tool reaches the Chat parts', () => {
    const cache = { type: 'ephemeral' };
    const chat = messagesViaChat.request({
      ...base,
      system: [{ type: 'text', text: 'Rules.', cache_control: cache }],
      tools: [{ name: 'f', input_schema: { type: 'object' }, cache_control: cache }],
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: 'ok', cache_control: cache },
            {
              type: 'image',
              source: { type: 'url', url: 'https://example.com/a.png' },
              cache_control: cache,
            },
            { type: 'text', text: 'Next?', cache_control: cache },
          ],
        },
      ],
    });
    assert.deepEqual(chat.messages[0], {
      role: 'system',
      content: [{ type: 'text', text: 'Rules.', cache_control: cache }],
    });
    assert.deepEqual(chat.messages.slice(2), [
      { role: 'tool', tool_call_id: 't1', content: [{ type: 'text', text: 'ok', cache_control: cache }] },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' }, cache_control: cache },
          { type: 'text', text: 'Next?', cache_control: cache },
        ],
      },
    ]);
    assert.deepEqual(chat.tools?.[0].cache_control, cache);
  });

  test("the beta's output_format becomes a json_schema response_format", () => {
    const schema = { type: 'object', properties: {}, additionalProperties: false };
    const chat = messagesViaChat.request({ ...base, output_format: { type: 'json_schema', schema } });
    assert.deepEqual(chat.response_format, {
      type: 'json_schema',
      json_schema: { name: 'output', schema, strict: true },
    });
  });
});

describe("messages via chat: an upstream's reasoning_content reaches the Anthropic client", () => {
  test('recorded DeepSeek answer: a thinking block before the text', () => {
    const answer = JSON.parse(
      fixture('deepseek-reasoning-content.json').toString(),
    ) as UpstreamChatCompletion;
    const message = messagesViaChat.response(answer, base);
    assert.deepEqual(message.content, [
      {
        type: 'thinking',
        thinking: 'Compare the tenths: 9.11 has 1, 9.8 has 8, so 9.11 is smaller.',
        signature: '',
      },
      { type: 'text', text: '9.11 is smaller than 9.8.' },
    ]);
  });

  test('recorded DeepSeek stream: a thinking block with thinking_delta events, then the text block', () => {
    const decoder = eventReaderOf(
      new OpenAIChatStreamDecoder({
        provider: 'openai-compatible',
        publicModel: 'public-gpt',
        includeUsage: true,
      }),
    );
    const translator = messagesViaChat.createStreamTranslator(base);
    const bytes = fixture('deepseek-reasoning-content-stream.sse');
    const events = [...decoder.push(bytes), ...decoder.finish()].flatMap((e) => translator.push(e));
    const blocks: Array<{ type: string; text: string }> = [];
    for (const { data } of events) {
      const event = data as {
        type: string;
        content_block?: { type: string };
        delta?: { type: string; thinking?: string; text?: string };
      };
      if (event.type === 'content_block_start')
        blocks.push({ type: String(event.content_block?.type), text: '' });
      if (event.type === 'content_block_delta') {
        const last = blocks[blocks.length - 1];
        last.text += event.delta?.type === 'thinking_delta' ? event.delta.thinking : event.delta?.text;
      }
    }
    assert.deepEqual(blocks, [
      { type: 'thinking', text: 'Compare the tenths: 1 against 8.' },
      { type: 'text', text: '9.11 is smaller.' },
    ]);
  });
});
