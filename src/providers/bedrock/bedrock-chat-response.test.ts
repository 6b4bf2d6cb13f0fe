import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { GatewayError } from '../../errors/gateway-error.ts';
import { normaliseChatUsage } from '../../formats/chat-completions/usage.ts';
import { toChatCompletion } from './bedrock-chat-response.ts';
import { bedrockConverseResponseSchema } from './bedrock-wire-types.ts';
import { mapBedrockStopReason } from './map-bedrock-stop-reason.ts';

const identity = {
  id: 'chatcmpl-1',
  model: 'anthropic.claude-3-haiku-20240307-v1:0',
  created: 1_700_000_000,
};
const recorded = bedrockConverseResponseSchema.parse(
  JSON.parse(readFileSync(new URL('./fixtures/converse-response-tool-use.json', import.meta.url), 'utf8')),
);

test('recorded tool-use answer: text, tool call and cache-aware usage', () => {
  assert.deepEqual(toChatCompletion(recorded, identity), {
    ...identity,
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'Let me check the weather.',
          refusal: null,
          tool_calls: [
            {
              id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
    // Bedrock counts cache reads (100) and writes (20) apart from inputTokens (412).
    usage: {
      prompt_tokens: 532,
      completion_tokens: 58,
      total_tokens: 590,
      prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 20 },
    },
  });
});

test('a tool call alone has null content; usage normalises with the cached part', () => {
  const completion = toChatCompletion(
    {
      ...recorded,
      output: { message: { role: 'assistant', content: [recorded.output.message.content[1]] } },
    },
    identity,
  );
  assert.equal(completion.choices[0].message.content, null);
  assert.deepEqual(normaliseChatUsage(completion.usage), {
    inputTokens: 532,
    outputTokens: 58,
    cachedInputTokens: 100,
  });
});

const generationFailed = (error: unknown) =>
  error instanceof GatewayError && error.code === 'upstream_generation_failed' && error.status === 502;

test('stop reasons map onto finish reasons; malformed output and unknown reasons are failures', () => {
  const table: Record<string, string> = {
    end_turn: 'stop',
    stop_sequence: 'stop',
    max_tokens: 'length',
    model_context_window_exceeded: 'length',
    tool_use: 'tool_calls',
    guardrail_intervened: 'content_filter',
    content_filtered: 'content_filter',
  };
  for (const [reason, expected] of Object.entries(table))
    assert.equal(mapBedrockStopReason(reason), expected, reason);
  for (const reason of ['malformed_model_output', 'malformed_tool_use', 'something_new', 'toString'])
    assert.throws(() => mapBedrockStopReason(reason), generationFailed, reason);
});

const fixture = (name: string) =>
  bedrockConverseResponseSchema.parse(
    JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')),
  );

test('bedrock-reasoning-content.json: reasoning_content, and cache reads and writes in usage', () => {
  const completion = toChatCompletion(fixture('bedrock-reasoning-content.json'), identity);
  assert.equal(completion.choices[0].message.content, '51');
  assert.equal(completion.choices[0].message.reasoning_content, 'The user wants 17 * 3. 17 * 3 = 51.');
  assert.deepEqual(
    completion.choices[0].message.thinking_blocks?.map((block) =>
      block.type === 'thinking' ? [block.thinking, block.signature?.slice(0, 12)] : block.type,
    ),
    [['The user wants 17 * 3. 17 * 3 = 51.', 'EqoBCkgIARAB']],
  );
  assert.deepEqual(completion.usage, {
    prompt_tokens: 2120,
    completion_tokens: 41,
    total_tokens: 2161,
    prompt_tokens_details: { cached_tokens: 2048, cache_write_tokens: 60 },
  });
});

test('bedrock-json-mode-tool-use.json: in JSON mode the json_response input is the content, finish stop', () => {
  const [choice] = toChatCompletion(fixture('bedrock-json-mode-tool-use.json'), identity, {
    callsForbidden: true,
    jsonTool: true,
  }).choices;
  assert.equal(choice.message.content, '{"city":"Paris","temperature_c":18}');
  assert.equal(choice.message.tool_calls, undefined);
  assert.equal(choice.finish_reason, 'stop');
});

test('a tool call the request forbade (tool_choice none) is a failed generation, not a call', () => {
  assert.throws(
    () => toChatCompletion(recorded, identity, { callsForbidden: true, jsonTool: false }),
    (error: unknown) =>
      error instanceof GatewayError && error.code === 'upstream_generation_failed' && error.status === 502,
  );
});

test('parallel_tool_calls false: the first tool call of the answer is kept', () => {
  const call = (id: string) => ({ toolUse: { toolUseId: id, name: 'f', input: {} } });
  const response = {
    ...recorded,
    output: { message: { role: 'assistant', content: [call('a'), call('b')] } },
  };
  const ids = (singleToolCall: boolean) =>
    toChatCompletion(response, identity, {
      callsForbidden: false,
      jsonTool: false,
      singleToolCall,
    }).choices[0].message.tool_calls?.map((c) => c.id);
  assert.deepEqual(ids(true), ['a']);
  assert.deepEqual(ids(false), ['a', 'b']);
});

test('bedrock-malformed-tool-use.json: a 502 upstream_generation_failed, not a stop with the text before the call', () => {
  assert.throws(
    () => toChatCompletion(fixture('bedrock-malformed-tool-use.json'), identity),
    generationFailed,
  );
});
