import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ChatCompletionRequest, ChatMessage } from '../shared/chat-completions-wire.ts';
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
    ['response_format', { type: 'json_object' }],
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

  test('tool_choice none with tool blocks in the conversation cannot be honoured', () => {
    rejects(
      chat(
        [
          { role: 'user', content: 'x' },
          {
            role: 'assistant',
            tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 't', content: 'r' },
        ],
        { tools, tool_choice: 'none' },
      ),
      'unsupported_parameter',
      'tool_choice',
    );
  });
});
