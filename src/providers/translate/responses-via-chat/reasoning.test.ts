/**
 * An upstream's reasoning (Claude's thinking through chat-via-messages, DeepSeek's
 * `reasoning_content`) reaches a Responses client as a `reasoning` item (issue 23).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { UpstreamChatCompletion } from '../../../formats/chat-completions/wire.ts';
import type { ResponsesRequest } from '../../../formats/responses/wire.ts';
import { eventReaderOf } from '../../../upstream/event-reader.ts';
import { OpenAIChatStreamDecoder } from '../../openai/openai-chat-stream-decoder.ts';
import { encodeThinkingBlocks, thinkingBlocksOfItem } from './reasoning.ts';
import { responsesViaChat } from './translator.ts';

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
    const decoder = eventReaderOf(
      new OpenAIChatStreamDecoder({
        provider: 'openai-compatible',
        publicModel: 'public-gpt',
        includeUsage: true,
      }),
    );
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

  test("Claude's signed thinking rides in encrypted_content when asked for, and comes back before the turn's calls", () => {
    const blocks = [{ type: 'thinking' as const, thinking: 'Call the tool.', signature: 'sig-9' }];
    const answer = {
      ...(JSON.parse(fixture('deepseek-reasoning-content.json').toString()) as UpstreamChatCompletion),
    };
    Object.assign(answer.choices[0].message, { thinking_blocks: blocks });
    const asked = { ...base, include: ['reasoning.encrypted_content'] } as ResponsesRequest;
    const item = (responsesViaChat.response(answer, asked) as { output: Array<Record<string, unknown>> })
      .output[0];
    assert.deepEqual(thinkingBlocksOfItem(item), blocks);
    const plain = (responsesViaChat.response(answer, base) as { output: Array<Record<string, unknown>> })
      .output[0];
    assert.equal('encrypted_content' in plain, false);

    const chat = responsesViaChat.request({
      model: 'claude',
      input: [
        { role: 'user', content: 'weather?' },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: encodeThinkingBlocks(blocks) },
        { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: '18C' },
        { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'gAAAAB-openai-own' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Mild.' }] },
      ],
    } as ResponsesRequest);
    const assistants = chat.messages.filter((m) => m.role === 'assistant') as Array<Record<string, unknown>>;
    assert.deepEqual(assistants[0].thinking_blocks, blocks);
    assert.equal(assistants[1].thinking_blocks, undefined);
  });
});
