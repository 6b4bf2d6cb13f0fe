import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import OpenAI from 'openai';
import { recordedText } from '../fakes/recorded.ts';
import {
  answerFirstFailure,
  type Json,
  lastJson,
  openaiClient,
  rejection,
  startUpstreams,
  type Upstreams,
} from './support.ts';

const PDF = 'JVBERi0xLjQK';
const USER = [{ role: 'user' as const, content: 'one two three four five' }];

/**
 * Rows of the Chat -> Anthropic column of the conformance matrix (docs/providers.md) that the
 * fidelity tests leave out: documents, parallel calls, metadata, stop, refusals of what Messages
 * cannot express, and a stream broken mid-way, through the official openai client.
 */
describe('conformance: Chat -> Anthropic', () => {
  let up: Upstreams;
  let openai: OpenAI;
  before(async () => {
    up = await startUpstreams();
    await answerFirstFailure(up.gw);
    openai = openaiClient(up.gw, up.key);
  });
  beforeEach(() => up.anthropic.reset());
  after(() => up?.close());

  it('a file part is a document block; parallel_tool_calls, user and stop map to Messages fields', async () => {
    await openai.chat.completions.create({
      model: 'claude',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'read this' },
            { type: 'file', file: { filename: 'a.pdf', file_data: `data:application/pdf;base64,${PDF}` } },
          ],
        },
      ],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      user: 'u1',
      stop: ['END'],
      metadata: { trace: 't1' },
    });
    const sent = lastJson(up.anthropic);
    const content = (sent.messages as Json[])[0].content as Json[];
    assert.deepEqual(
      content.map((block) => block.type),
      ['text', 'document'],
    );
    assert.deepEqual((content[1] as { source: Json }).source, {
      type: 'base64',
      media_type: 'application/pdf',
      data: PDF,
    });
    assert.deepEqual(sent.tool_choice, { type: 'auto', disable_parallel_tool_use: true });
    assert.deepEqual(sent.metadata, { user_id: 'u1' }, 'OpenAI-side metadata is not sent');
    assert.deepEqual(sent.stop_sequences, ['END']);
  });

  for (const [param, extra] of [
    ['n', { n: 2 }],
    ['logprobs', { logprobs: true }],
    ['frequency_penalty', { frequency_penalty: 0.5 }],
    ['temperature', { temperature: 1.5 }],
  ] as const) {
    it(`refuses ${param} Messages cannot express with a 400 naming it, before any upstream call`, async () => {
      const error = await rejection(
        openai.chat.completions.create({ model: 'claude', messages: USER, ...extra }),
      );
      assert.ok(error instanceof OpenAI.BadRequestError, String(error));
      assert.equal(error.param, param);
      assert.equal(up.anthropic.requests.length, 0);
    });
  }

  it('a stream broken mid-way by anthropic-stream-api-error.sse ends in an error the SDK raises', async () => {
    up.anthropic.faultNextStream({
      afterEvents: 3,
      action: { raw: recordedText('anthropic', 'anthropic-stream-api-error.sse') },
    });
    const stream = await openai.chat.completions.create({ model: 'claude', messages: USER, stream: true });
    const error = await rejection(
      (async () => {
        for await (const _chunk of stream);
      })(),
    );
    assert.ok(error instanceof OpenAI.APIError, String(error));
  });

  it('an image in a tool message stays an image inside the tool_result Claude reads', async () => {
    const png = 'iVBORw0KGgo=';
    await openai.chat.completions.create({
      model: 'claude',
      messages: [
        { role: 'user', content: 'take a screenshot' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }],
        },
        {
          role: 'tool',
          tool_call_id: 'call_1',
          // LiteLLM's convention; the OpenAI SDK's types allow text parts only.
          content: [
            { type: 'text', text: 'the screen:' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
          ] as never,
        },
      ],
    });
    const result = ((lastJson(up.anthropic).messages as Json[])[2].content as Json[])[0];
    assert.deepEqual(result.content, [
      { type: 'text', text: 'the screen:' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
    ]);
  });
});
