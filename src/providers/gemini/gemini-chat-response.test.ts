import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { GatewayError } from '../../errors/gateway-error.ts';
import { normaliseChatUsage } from '../../formats/chat-completions/usage.ts';
import { toChatCompletion } from './gemini-chat-response.ts';
import { thoughtSignatureOf } from './gemini-tool-call-id.ts';
import { geminiGenerateContentResponseSchema } from './gemini-wire-types.ts';
import { mapGeminiFinishReason } from './map-gemini-finish-reason.ts';

const fixture = (name: string) =>
  geminiGenerateContentResponseSchema.parse(
    JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')),
  );
const identity = { id: 'chatcmpl-1', model: 'gemini-2.5-flash', created: 1_700_000_000 };

test('recorded function call answer: text, a tool call carrying its thought signature, usage with thinking and cache', () => {
  const completion = toChatCompletion(fixture('generate-response-function-call.json'), identity);
  const [choice] = completion.choices;
  assert.equal(choice.message.content, "I'll check the weather.");
  assert.equal(choice.finish_reason, 'tool_calls');
  const [call] = choice.message.tool_calls ?? [];
  assert.deepEqual(call.function, { name: 'get_weather', arguments: '{"city":"Paris"}' });
  assert.equal(thoughtSignatureOf(call.id), 'BwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLi8wMTIz');
  assert.deepEqual(completion.usage, {
    prompt_tokens: 120,
    completion_tokens: 65,
    total_tokens: 185,
    prompt_tokens_details: { cached_tokens: 64 },
    completion_tokens_details: { reasoning_tokens: 50 },
  });
  assert.deepEqual(normaliseChatUsage(completion.usage), {
    inputTokens: 120,
    outputTokens: 65,
    cachedInputTokens: 64,
  });
});

test('a blocked prompt is a content policy error, not an empty answer', () => {
  assert.throws(
    () => toChatCompletion(fixture('generate-response-prompt-blocked.json'), identity),
    (error: unknown) =>
      error instanceof GatewayError &&
      error.code === 'content_policy_violation' &&
      error.errorClass === 'content_policy',
  );
});

test('every candidate is a choice; thought summaries are reasoning_content, not content', () => {
  const completion = toChatCompletion(
    geminiGenerateContentResponseSchema.parse({
      candidates: [
        {
          content: { role: 'model', parts: [{ text: 'thinking...', thought: true }, { text: 'A' }] },
          finishReason: 'STOP',
          index: 0,
        },
        { content: { role: 'model', parts: [{ text: 'B' }] }, finishReason: 'MAX_TOKENS', index: 1 },
      ],
    }),
    identity,
  );
  assert.deepEqual(
    completion.choices.map((c) => [c.index, c.message.content, c.finish_reason]),
    [
      [0, 'A', 'stop'],
      [1, 'B', 'length'],
    ],
  );
  assert.equal(completion.choices[0].message.reasoning_content, 'thinking...');
  assert.equal('reasoning_content' in completion.choices[1].message, false);
});

const failedWith = (finishReason: string) => (error: unknown) =>
  error instanceof GatewayError &&
  error.code === 'upstream_generation_failed' &&
  error.status === 502 &&
  (error.detail as { finishReason?: string }).finishReason === finishReason;

test('gemini-malformed-function-call.json: a 502 upstream_generation_failed, not an empty stop', () => {
  assert.throws(
    () => toChatCompletion(fixture('gemini-malformed-function-call.json'), identity),
    failedWith('MALFORMED_FUNCTION_CALL'),
  );
});

test('gemini-unexpected-tool-call.json: a 502 even with text before the call', () => {
  assert.throws(
    () => toChatCompletion(fixture('gemini-unexpected-tool-call.json'), identity),
    failedWith('UNEXPECTED_TOOL_CALL'),
  );
});

test('gemini-thoughts-and-logprobs.json: thoughts as reasoning_content, logprobs in Chat shape', () => {
  const [choice] = toChatCompletion(fixture('gemini-thoughts-and-logprobs.json'), identity).choices;
  assert.equal(choice.message.content, '4');
  assert.equal(choice.message.reasoning_content, '**Adding the numbers**\n\nTwo plus two is four.');
  assert.deepEqual(choice.logprobs, {
    content: [
      {
        token: '4',
        logprob: -0.0123,
        bytes: [52],
        top_logprobs: [
          { token: '4', logprob: -0.0123, bytes: [52] },
          { token: 'Four', logprob: -4.61, bytes: [70, 111, 117, 114] },
        ],
      },
    ],
    refusal: null,
  });
});

test('parallel_tool_calls false: the first function call of a candidate is kept', () => {
  const call = (name: string) => ({ functionCall: { name, args: {} } });
  const response = geminiGenerateContentResponseSchema.parse({
    candidates: [{ content: { parts: [call('a'), call('b')] }, finishReason: 'STOP', index: 0 }],
  });
  const names = (singleToolCall: boolean) =>
    toChatCompletion(response, identity, { singleToolCall }).choices[0].message.tool_calls?.map(
      (c) => c.function.name,
    );
  assert.deepEqual(names(true), ['a']);
  assert.deepEqual(names(false), ['a', 'b']);
});

test('finish reasons: every content block is content_filter; failures and unknown reasons throw; tool calls win over stop only', () => {
  const table: Array<[string | undefined, boolean, string]> = [
    ['STOP', false, 'stop'],
    ['STOP', true, 'tool_calls'],
    ['MAX_TOKENS', true, 'length'],
    ['SAFETY', false, 'content_filter'],
    ['RECITATION', false, 'content_filter'],
    ['LANGUAGE', false, 'content_filter'],
    ['BLOCKLIST', false, 'content_filter'],
    ['PROHIBITED_CONTENT', false, 'content_filter'],
    ['SPII', false, 'content_filter'],
    ['IMAGE_SAFETY', false, 'content_filter'],
    [undefined, false, 'stop'],
  ];
  for (const [reason, called, expected] of table)
    assert.equal(mapGeminiFinishReason(reason, called), expected, String(reason));
  for (const reason of [
    'MALFORMED_FUNCTION_CALL',
    'UNEXPECTED_TOOL_CALL',
    'TOO_MANY_TOOL_CALLS',
    'MISSING_THOUGHT_SIGNATURE',
    'OTHER',
    'FINISH_REASON_UNSPECIFIED',
    'A_REASON_ADDED_LATER',
  ]) {
    assert.throws(() => mapGeminiFinishReason(reason, true), failedWith(reason), reason);
  }
});
