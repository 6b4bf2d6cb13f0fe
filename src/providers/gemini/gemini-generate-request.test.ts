import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ChatCompletionRequest, ChatMessage } from '../../formats/chat-completions/wire.ts';
import { toGenerateContentRequest } from './gemini-generate-request.ts';
import { newToolCallId, SKIP_THOUGHT_SIGNATURE, thoughtSignatureOf } from './gemini-tool-call-id.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));
const chat = (messages: ChatMessage[], extra: Record<string, unknown> = {}): ChatCompletionRequest => ({
  model: 'gemini-2.0-flash',
  messages,
  ...extra,
});
const user: ChatMessage[] = [{ role: 'user', content: 'hi' }];

function rejects(body: ChatCompletionRequest, code: string, param: string): void {
  assert.throws(
    () => toGenerateContentRequest(body),
    (error: unknown) => error instanceof GatewayError && error.code === code && error.param === param,
  );
}

test('recorded request: system, images, parallel tool calls with a thought signature, tool results, tools and parameters', () => {
  const body = fixture('chat-request-tools.json') as ChatCompletionRequest;
  assert.deepEqual(toGenerateContentRequest(body), fixture('generate-request-tools.json'));
});

describe('messages', () => {
  test('a first tool call without a signature (a history not from Gemini) gets the documented skip value', () => {
    const request = toGenerateContentRequest(
      chat([
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          tool_calls: [{ id: 'toolu_01', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_01', content: 'done' },
      ]),
    );
    assert.deepEqual(request.contents[1], {
      role: 'model',
      parts: [{ functionCall: { name: 'f', args: {} }, thoughtSignature: SKIP_THOUGHT_SIGNATURE }],
    });
    assert.deepEqual(request.contents[2], {
      role: 'user',
      parts: [{ functionResponse: { name: 'f', response: { content: 'done' } } }],
    });
  });

  test('a tool message with no earlier matching call is a bad request naming tool_call_id', () => {
    rejects(
      chat([
        { role: 'user', content: 'x' },
        { role: 'tool', tool_call_id: 'nope', content: 'r' },
      ]),
      'invalid_request',
      'messages[1].tool_call_id',
    );
  });

  test('tool call arguments must be a JSON object', () => {
    rejects(
      chat([
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '[1]' } }],
        },
      ]),
      'invalid_request',
      'messages[1].tool_calls[0].function.arguments',
    );
  });

  test('audio and inline files become inline data; a file id cannot be passed on', () => {
    const request = toGenerateContentRequest(
      chat([
        {
          role: 'user',
          content: [
            { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
          ],
        },
      ]),
    );
    assert.deepEqual(request.contents[0].parts, [
      { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } },
      { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
    ]);
    rejects(
      chat([{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }]),
      'unsupported_parameter',
      'messages[0].content[0]',
    );
  });
});

describe('parameters', () => {
  test('generation config from the OpenAI names; max_completion_tokens wins; stop string becomes a list', () => {
    const request = toGenerateContentRequest(
      chat(user, {
        max_tokens: 5,
        max_completion_tokens: 9,
        stop: 'X',
        n: 2,
        seed: 7,
        presence_penalty: 0.5,
        frequency_penalty: 0.25,
        top_k: 40,
      }),
    );
    assert.deepEqual(request.generationConfig, {
      maxOutputTokens: 9,
      stopSequences: ['X'],
      candidateCount: 2,
      seed: 7,
      presencePenalty: 0.5,
      frequencyPenalty: 0.25,
      topK: 40,
    });
  });

  test('json_object and json_schema ask for JSON; the schema is converted', () => {
    assert.deepEqual(
      toGenerateContentRequest(chat(user, { response_format: { type: 'json_object' } })).generationConfig,
      {
        responseMimeType: 'application/json',
      },
    );
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['name'],
      additionalProperties: false,
    };
    assert.deepEqual(
      toGenerateContentRequest(
        chat(user, {
          response_format: { type: 'json_schema', json_schema: { name: 'person', schema, strict: true } },
        }),
      ).generationConfig,
      {
        responseMimeType: 'application/json',
        responseSchema: {
          type: 'object',
          properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
          required: ['name'],
        },
      },
    );
  });

  test("reasoning_effort: a Gemini 2.5 thinking budget (Google's documented table) with thought summaries", () => {
    const config = (effort: string, model = 'gemini-2.5-flash') =>
      toGenerateContentRequest({ ...chat(user, { reasoning_effort: effort }), model }).generationConfig
        ?.thinkingConfig;
    assert.deepEqual(config('none'), { thinkingBudget: 0 });
    assert.deepEqual(config('low'), { thinkingBudget: 1024, includeThoughts: true });
    assert.deepEqual(config('medium'), { thinkingBudget: 8192, includeThoughts: true });
    assert.deepEqual(config('high'), { thinkingBudget: 24576, includeThoughts: true });
    // 2.5 Pro cannot turn thinking off: its smallest budget.
    assert.deepEqual(config('none', 'models/gemini-2.5-pro'), { thinkingBudget: 128 });
    rejects(chat(user, { reasoning_effort: 'extreme' }), 'unsupported_parameter', 'reasoning_effort');
  });

  test('reasoning_effort: a Gemini 3 thinking level (Pro takes low and high only), never a budget', () => {
    const config = (effort: string, model: string) =>
      toGenerateContentRequest({ ...chat(user, { reasoning_effort: effort }), model }).generationConfig
        ?.thinkingConfig;
    assert.deepEqual(config('minimal', 'gemini-3-flash-preview'), {
      thinkingLevel: 'minimal',
      includeThoughts: true,
    });
    assert.deepEqual(config('medium', 'gemini-3-flash-preview'), {
      thinkingLevel: 'medium',
      includeThoughts: true,
    });
    assert.deepEqual(config('medium', 'gemini-3-pro-preview'), {
      thinkingLevel: 'high',
      includeThoughts: true,
    });
    assert.deepEqual(config('minimal', 'gemini-3-pro-preview'), {
      thinkingLevel: 'low',
      includeThoughts: true,
    });
    assert.deepEqual(config('none', 'gemini-3-pro-preview'), {
      thinkingLevel: 'low',
      includeThoughts: false,
    });
  });

  test('logprobs and top_logprobs ask for responseLogprobs and that many candidates per step', () => {
    assert.deepEqual(
      toGenerateContentRequest(chat(user, { logprobs: true, top_logprobs: 3 })).generationConfig,
      { responseLogprobs: true, logprobs: 3 },
    );
  });

  test('parallel_tool_calls false is taken (Gemini has no switch; the answer keeps one call)', () => {
    assert.equal(
      toGenerateContentRequest(chat(user, { parallel_tool_calls: false })).generationConfig,
      undefined,
    );
  });

  for (const [name, value] of [
    ['logit_bias', { '50256': -100 }],
    ['audio', { voice: 'alloy' }],
    ['some_new_parameter', 1],
  ] as const) {
    test(`${name}=${JSON.stringify(value)} is an unsupported_parameter, not dropped`, () => {
      rejects(chat(user, { [name]: value }), 'unsupported_parameter', name);
    });
  }
});

describe('tool choice', () => {
  const tools = [
    {
      type: 'function' as const,
      function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } } },
    },
  ];
  const config = (tool_choice: unknown) =>
    toGenerateContentRequest(chat(user, { tools, tool_choice })).toolConfig;

  test('none, auto, required and a named function map onto the calling modes', () => {
    assert.deepEqual(config('none'), { functionCallingConfig: { mode: 'NONE' } });
    assert.deepEqual(config('auto'), { functionCallingConfig: { mode: 'AUTO' } });
    assert.deepEqual(config('required'), { functionCallingConfig: { mode: 'ANY' } });
    assert.deepEqual(config({ type: 'function', function: { name: 'f' } }), {
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] },
    });
    assert.equal(config(undefined), undefined);
  });
});

describe('tool call ids', () => {
  test('an id made with a thought signature gives the signature back; a plain id gives none', () => {
    const signature = Buffer.from('opaque signature bytes \u00ff').toString('base64');
    const id = newToolCallId(signature);
    assert.match(id, /^call_[0-9a-f]{24}__ts_[A-Za-z0-9_-]+$/);
    assert.equal(thoughtSignatureOf(id), signature);
    assert.equal(thoughtSignatureOf(newToolCallId()), undefined);
    assert.equal(thoughtSignatureOf('toolu_01__ts_abc'), undefined);
  });
});
