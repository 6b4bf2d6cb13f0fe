/**
 * An upstream's reasoning (Claude's thinking through chat-via-messages, DeepSeek's
 * `reasoning_content`) reaches a Responses client as a `reasoning` item (issue 23).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { OpenAIChatStreamDecoder } from '../../openai/openai-chat-stream-decoder.ts';
import type { ResponsesRequest } from '../../openai/openai-responses-wire.ts';
import type { UpstreamChatCompletion } from '../../shared/chat-completions-wire.ts';
import { responsesViaChat } from './responses-via-chat.ts';

const base: ResponsesRequest = { model: 'reasoner', input: 'Which is smaller, 9.11 or 9.8?' };

function fixture(name: string): Buffer {
  return readFileSync(new URL(`../../openai/fixtures/${name}`, import.meta.url));
}

describe('responses via chat: reasoning items', () => {
  test('recorded DeepSeek answer: a reasoning item with the summary text, then the message', () => {
    const answer = JSON.parse(
      fixture('deepseek-reasoning-content.json').toString(),
    ) as UpstreamChatCompletion;
    const output = (responsesViaChat.response(answer, base) as { output: Array<Record<string, unknown>> })
      .output;
    assert.deepEqual(
      output.map((item) => item.type),
      ['reasoning', 'message'],
    );
    assert.deepEqual(output[0].summary, [
      { type: 'summary_text', text: 'Compare the tenths: 9.11 has 1, 9.8 has 8, so 9.11 is smaller.' },
    ]);
  });

  test('recorded DeepSeek stream: reasoning summary events, then the message, in the final response too', () => {
    const decoder = new OpenAIChatStreamDecoder({ provider: 'openai-compatible', includeUsage: true });
    const translator = responsesViaChat.createStreamTranslator({ ...base, stream: true });
    const bytes = fixture('deepseek-reasoning-content-stream.sse');
    const events = [...decoder.push(bytes), ...decoder.finish()].flatMap((e) => translator.push(e));
    const types = events.map((e) => (e.data as { type: string }).type);
    assert.deepEqual(types.slice(2, 8), [
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
    ]);
    const done = events.at(-1)?.data as { response: { output: Array<Record<string, unknown>> } };
    assert.deepEqual(done.response.output[0], {
      id: done.response.output[0].id,
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Compare the tenths: 1 against 8.' }],
    });
    assert.equal(done.response.output[1].type, 'message');
  });
});
