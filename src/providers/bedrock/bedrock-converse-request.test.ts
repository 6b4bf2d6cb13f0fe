import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ChatCompletionRequest, ChatMessage } from '../../formats/chat-completions/wire.ts';
import { toConverseRequest } from './bedrock-converse-request.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));

const chat = (messages: ChatMessage[], extra: Record<string, unknown> = {}): ChatCompletionRequest => ({
  model: 'm',
  messages,
  ...extra,
});

function rejects(body: ChatCompletionRequest, code: string, param: string): void {
  assert.throws(
    () => toConverseRequest(body),
    (error: unknown) => error instanceof GatewayError && error.code === code && error.param === param,
  );
}

test('recorded request: system, image, tool call, tool result and parameters become one Converse body', () => {
  const body = fixture('chat-request-tools.json') as ChatCompletionRequest;
  assert.deepEqual(toConverseRequest(body), fixture('converse-request-tools.json'));
});

describe('messages', () => {
  test('developer messages join the system blocks and consecutive user turns merge', () => {
    const converse = toConverseRequest(
      chat([
        { role: 'developer', content: [{ type: 'text', text: 'Rule one.' }] },
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ]),
    );
    assert.deepEqual(converse.system, [{ text: 'Rule one.' }]);
    assert.deepEqual(converse.messages, [{ role: 'user', content: [{ text: 'a' }, { text: 'b' }] }]);
  });

  test('parallel tool results land in one user turn, in order', () => {
    const converse = toConverseRequest(
      chat([
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 't1', type: 'function', function: { name: 'f', arguments: '' } },
            { id: 't2', type: 'function', function: { name: 'g', arguments: '{"x":1}' } },
          ],
        },
        { role: 'tool', tool_call_id: 't1', content: 'one' },
        { role: 'tool', tool_call_id: 't2', content: [{ type: 'text', text: 'two' }] },
      ]),
    );
    assert.deepEqual(converse.messages.slice(1), [
      {
        role: 'assistant',
        content: [
          { toolUse: { toolUseId: 't1', name: 'f', input: {} } },
          { toolUse: { toolUseId: 't2', name: 'g', input: { x: 1 } } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 't1', content: [{ text: 'one' }] } },
          { toolResult: { toolUseId: 't2', content: [{ text: 'two' }] } },
        ],
      },
    ]);
  });

  test('a remote image URL is refused: Converse takes bytes only', () => {
    rejects(
      chat([
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/cat.png' } }] },
      ]),
      'unsupported_parameter',
      'messages[0].content[0].image_url.url',
    );
  });

  test('an image type Converse does not know is refused', () => {
    rejects(
      chat([
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,Qk0=' } }] },
      ]),
      'unsupported_parameter',
      'messages[0].content[0].image_url.url',
    );
  });

  test('tool call arguments that are not JSON are a bad request naming the field', () => {
    rejects(
      chat([
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{' } }],
        },
      ]),
      'invalid_request',
      'messages[1].tool_calls[0].function.arguments',
    );
  });
});

describe('parameters', () => {
  const user: ChatMessage[] = [{ role: 'user', content: 'hi' }];

  test('max_completion_tokens wins over the deprecated max_tokens; stop arrays pass as they are', () => {
    const converse = toConverseRequest(
      chat(user, { max_tokens: 10, max_completion_tokens: 20, stop: ['a', 'b'] }),
    );
    assert.deepEqual(converse.inferenceConfig, { maxTokens: 20, stopSequences: ['a', 'b'] });
  });

  test('no-op values of unsupported parameters are accepted; null means absent', () => {
    const converse = toConverseRequest(
      chat(user, {
        n: 1,
        presence_penalty: 0,
        logprobs: false,
        logit_bias: {},
        parallel_tool_calls: true,
        seed: null,
      }),
    );
    assert.equal(converse.inferenceConfig, undefined);
  });

  for (const [name, value] of [
    ['n', 2],
    ['seed', 7],
    ['frequency_penalty', 0.5],
    ['logprobs', true],
    ['some_new_parameter', 'x'],
  ] as const) {
    test(`${name}=${JSON.stringify(value)} is an unsupported_parameter, not dropped`, () => {
      rejects(chat(user, { [name]: value }), 'unsupported_parameter', name);
    });
  }
});

describe('tools', () => {
  const tools = [{ type: 'function' as const, function: { name: 'f' } }];

  test('required, a named function and auto map to any, tool and auto; a schema-less tool gets an empty object schema', () => {
    const config = (tool_choice: unknown) =>
      toConverseRequest(chat([{ role: 'user', content: 'x' }], { tools, tool_choice })).toolConfig;
    assert.deepEqual(config('required')?.toolChoice, { any: {} });
    assert.deepEqual(config({ type: 'function', function: { name: 'f' } })?.toolChoice, {
      tool: { name: 'f' },
    });
    assert.deepEqual(config(undefined), {
      tools: [{ toolSpec: { name: 'f', inputSchema: { json: { type: 'object', properties: {} } } } }],
    });
  });

  test('tool_choice none drops the tools when the conversation has no tool blocks', () => {
    const converse = toConverseRequest(
      chat([{ role: 'user', content: 'x' }], { tools, tool_choice: 'none' }),
    );
    assert.equal(converse.toolConfig, undefined);
  });

  test('bedrock-tool-choice-none-with-history.json: the tools stay declared and Claude is told none', () => {
    const body = fixture('bedrock-tool-choice-none-with-history.json') as ChatCompletionRequest;
    assert.deepEqual(toConverseRequest(body), fixture('bedrock-tool-choice-none-with-history.converse.json'));
  });

  test('a history with tool calls but no tools offered declares the called tools (no toolChoice)', () => {
    const converse = toConverseRequest(
      chat([
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 't', content: 'r' },
      ]),
    );
    assert.deepEqual(converse.toolConfig, {
      tools: [{ toolSpec: { name: 'f', inputSchema: { json: { type: 'object', properties: {} } } } }],
    });
    // Not a Claude model: no native none to ask for; a call in the answer is refused instead.
    assert.equal(converse.additionalModelRequestFields, undefined);
  });
});

describe('documents, images and prompt caching', () => {
  const pdf = `data:application/pdf;base64,${Buffer.from('%PDF-1.4').toString('base64')}`;

  test('bedrock-cache-control.json: cache_control on system, user and tool parts and on tools becomes cachePoints', () => {
    const body = fixture('bedrock-cache-control.json') as ChatCompletionRequest;
    assert.deepEqual(toConverseRequest(body), fixture('bedrock-cache-control.converse.json'));
  });

  test('file parts are document blocks with a clean, unique name', () => {
    const converse = toConverseRequest(
      chat([
        {
          role: 'user',
          content: [
            { type: 'file', file: { file_data: pdf, filename: 'Q3 report_final.v2.pdf' } },
            { type: 'file', file: { file_data: pdf, filename: 'Q3 report_final.v2.pdf' } },
            { type: 'file', file: { file_data: 'data:text/csv;base64,YSxi' } },
            { type: 'text', text: 'Compare them.' },
          ],
        },
      ]),
    );
    assert.deepEqual(converse.messages[0].content, [
      { document: { format: 'pdf', name: 'Q3 report final v2', source: { bytes: 'JVBERi0xLjQ=' } } },
      { document: { format: 'pdf', name: 'Q3 report final v2 (2)', source: { bytes: 'JVBERi0xLjQ=' } } },
      { document: { format: 'csv', name: 'document 3', source: { bytes: 'YSxi' } } },
      { text: 'Compare them.' },
    ]);
  });

  test('a file_id or an unknown document type is a 400 naming the field', () => {
    rejects(
      chat([{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] }]),
      'unsupported_parameter',
      'messages[0].content[0].file',
    );
    rejects(
      chat([
        {
          role: 'user',
          content: [{ type: 'file', file: { file_data: 'data:application/zip;base64,UEs=' } }],
        },
      ]),
      'unsupported_parameter',
      'messages[0].content[0].file.file_data',
    );
  });

  test('an image URL is refused with a message that says to send bytes, naming the field', () => {
    assert.throws(
      () =>
        toConverseRequest(
          chat([
            {
              role: 'user',
              content: [{ type: 'image_url', image_url: { url: 'http://169.254.169.254/x.png' } }],
            },
          ]),
        ),
      (error: unknown) =>
        error instanceof GatewayError &&
        error.code === 'unsupported_parameter' &&
        error.param === 'messages[0].content[0].image_url.url' &&
        /base64 data URL/.test(error.publicMessage) &&
        /does not fetch/.test(error.publicMessage),
    );
  });
});

describe('reasoning and JSON mode', () => {
  const user: ChatMessage[] = [{ role: 'user', content: 'hi' }];
  const claude = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

  test('reasoning_effort on Claude is a thinking budget below the token limit; temperature and a low top_p are left out', () => {
    const converse = toConverseRequest({
      ...chat(user, { reasoning_effort: 'medium', temperature: 0.7, top_p: 0.9, max_tokens: 4000 }),
      model: claude,
    });
    assert.deepEqual(converse.additionalModelRequestFields, {
      thinking: { type: 'enabled', budget_tokens: 3999 },
    });
    assert.deepEqual(converse.inferenceConfig, { maxTokens: 4000 });
    const high = toConverseRequest({
      ...chat(user, { reasoning_effort: 'high', top_p: 0.97 }),
      model: `us.${claude}`,
    });
    assert.deepEqual(high.additionalModelRequestFields, {
      thinking: { type: 'enabled', budget_tokens: 24576 },
    });
    assert.deepEqual(high.inferenceConfig, { topP: 0.97 });
    assert.equal(
      toConverseRequest({ ...chat(user, { reasoning_effort: 'none' }), model: claude })
        .additionalModelRequestFields,
      undefined,
    );
  });

  test('thinking is left off with a token limit below the smallest budget, a forced tool or JSON mode', () => {
    const thinkingOf = (extra: Record<string, unknown>) =>
      toConverseRequest({ ...chat(user, { reasoning_effort: 'low', ...extra }), model: claude })
        .additionalModelRequestFields?.thinking;
    const tools = [{ type: 'function', function: { name: 'f' } }];
    assert.equal(thinkingOf({ max_tokens: 1000 }), undefined);
    assert.equal(thinkingOf({ tools, tool_choice: 'required' }), undefined);
    assert.equal(thinkingOf({ response_format: { type: 'json_object' } }), undefined);
    assert.deepEqual(thinkingOf({ tools, tool_choice: 'auto' }), { type: 'enabled', budget_tokens: 1024 });
  });

  test('thinking is left off when the last tool turn lacks the signed thinking Claude wants back', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'x' },
      {
        role: 'assistant',
        tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 't', content: 'r' },
    ];
    const tools = [{ type: 'function', function: { name: 'f' } }];
    const converse = toConverseRequest({
      ...chat(history, { tools, reasoning_effort: 'low' }),
      model: claude,
    });
    assert.equal(converse.additionalModelRequestFields, undefined);
  });

  test('thinking_blocks of an earlier turn go back first in the turn; an unsigned block is left out', () => {
    const converse = toConverseRequest({
      ...chat(
        [
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: null,
            thinking_blocks: [
              { type: 'thinking', thinking: 'I should call the tool.', signature: 'c2ln' },
              { type: 'thinking', thinking: 'not from Claude' },
              { type: 'redacted_thinking', data: 'ZW5j' },
            ],
            tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 't', content: 'sunny' },
        ],
        { tools: [{ type: 'function', function: { name: 'f' } }], reasoning_effort: 'low' },
      ),
      model: claude,
    });
    assert.deepEqual(converse.messages[1].content, [
      { reasoningContent: { reasoningText: { text: 'I should call the tool.', signature: 'c2ln' } } },
      { reasoningContent: { redactedContent: 'ZW5j' } },
      { toolUse: { toolUseId: 't', name: 'f', input: {} } },
    ]);
  });

  test("top_k is Claude's own top_k (left out while thinking); other models refuse it", () => {
    const fields = (extra: Record<string, unknown>) =>
      toConverseRequest({ ...chat(user, { top_k: 40, ...extra }), model: claude })
        .additionalModelRequestFields;
    assert.deepEqual(fields({}), { top_k: 40 });
    assert.deepEqual(fields({ reasoning_effort: 'medium' }), {
      thinking: { type: 'enabled', budget_tokens: 8192 },
    });
    rejects(chat(user, { top_k: 40 }), 'unsupported_parameter', 'top_k');
  });

  test('reasoning_effort on a model without thinking, or an unknown effort, is a 400', () => {
    rejects(chat(user, { reasoning_effort: 'low' }), 'unsupported_parameter', 'reasoning_effort');
    rejects(
      { ...chat(user, { reasoning_effort: 'extreme' }), model: claude },
      'unsupported_parameter',
      'reasoning_effort',
    );
  });

  test('json_schema is native structured output (outputConfig.textFormat, the schema as a string)', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'integer' } },
      required: ['a'],
      additionalProperties: false,
    };
    const converse = toConverseRequest(
      chat(user, {
        response_format: { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } },
      }),
    );
    assert.deepEqual(converse.outputConfig, {
      textFormat: {
        type: 'json_schema',
        structure: { jsonSchema: { schema: JSON.stringify(schema), name: 'answer' } },
      },
    });
    assert.equal(converse.toolConfig, undefined);
  });

  test('json_object is the forced json_response tool; not beside tools', () => {
    const converse = toConverseRequest(chat(user, { response_format: { type: 'json_object' } }));
    assert.deepEqual(converse.toolConfig?.toolChoice, { tool: { name: 'json_response' } });
    assert.deepEqual(
      converse.toolConfig?.tools.map((tool) => ('toolSpec' in tool ? tool.toolSpec.name : 'cachePoint')),
      ['json_response'],
    );
    rejects(
      chat(user, {
        response_format: { type: 'json_object' },
        tools: [{ type: 'function', function: { name: 'f' } }],
      }),
      'unsupported_parameter',
      'response_format',
    );
  });
});
