import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { recordedJson, recordedText } from '../fakes/recorded.ts';
import { type Json, lastJson, openaiClient, rejection, startUpstreams, type Upstreams } from './support.ts';

/** The part of a recorded Chat answer or chunk these tests read. */
type UpstreamAnswer = { choices: Array<{ logprobs: { content: unknown[] } }> };
type UpstreamChunk = { choices: Array<{ logprobs?: { content?: unknown[] } | null }> };

/**
 * The Responses -> Chat column of the conformance matrix (docs/providers.md): a Responses call
 * on an OpenAI-compatible deployment (`compat`, served by Chat Completions) through the official
 * client, asserting the Chat request the upstream received and the Responses answer.
 */
describe('conformance: Responses -> Chat', () => {
  let up: Upstreams;
  let openai: OpenAI;
  before(async () => {
    up = await startUpstreams();
    openai = openaiClient(up.gw, up.key);
  });
  beforeEach(() => up.openai.reset());
  after(() => up?.close());

  it('instructions, multi-part input, tool history, tools, choice, sampling, limits and format map to Chat', async () => {
    const response = await openai.responses.create({
      model: 'compat',
      instructions: 'be brief',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'look' },
            { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'auto' },
          ],
        },
        { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'found' },
      ],
      tools: [
        {
          type: 'function',
          name: 'lookup',
          parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
          strict: true,
        },
      ],
      tool_choice: 'required',
      parallel_tool_calls: false,
      temperature: 0.5,
      top_p: 0.9,
      max_output_tokens: 100,
      metadata: { trace: 't1' },
      prompt_cache_key: 'session-1',
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object', properties: {} } } },
    });
    assert.equal(response.model, 'compat');
    assert.equal(response.status, 'completed');
    const sent = lastJson(up.openai);
    const messages = sent.messages as Json[];
    assert.deepEqual(messages[0], { role: 'system', content: 'be brief' });
    assert.equal(messages[1].role, 'user');
    assert.deepEqual(
      (messages[1].content as Json[]).map((part) => part.type),
      ['text', 'image_url'],
    );
    assert.deepEqual((messages[2].tool_calls as Json[])[0], {
      id: 'call_1',
      type: 'function',
      function: { name: 'lookup', arguments: '{"q":"x"}' },
    });
    assert.deepEqual(messages[3], { role: 'tool', tool_call_id: 'call_1', content: 'found' });
    assert.equal(((sent.tools as Json[])[0].function as Json).strict, true);
    assert.equal(sent.tool_choice, 'required');
    assert.equal(sent.parallel_tool_calls, false);
    assert.deepEqual([sent.temperature, sent.top_p, sent.max_completion_tokens], [0.5, 0.9, 100]);
    assert.equal((sent.response_format as Json).type, 'json_schema');
    assert.equal(sent.prompt_cache_key, 'session-1');
    assert.equal(sent.metadata, undefined, 'metadata is the gateway’s to serve, not the upstream’s');
  });

  it('a stream asks the upstream for usage and ends with response.completed carrying it', async () => {
    const stream = await openai.responses.create({ model: 'compat', input: 'hello there', stream: true });
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) if (event.type === 'response.completed') completed = event.response;
    assert.deepEqual(lastJson(up.openai).stream_options, { include_usage: true });
    assert.ok(completed?.usage && completed.usage.input_tokens > 0, 'usage reaches the Responses client');
  });

  it('a built-in tool is left out of the offer; forcing one is a 400 naming tool_choice', async () => {
    await openai.responses.create({
      model: 'compat',
      input: 'hi',
      tools: [
        { type: 'web_search_preview' },
        { type: 'function', name: 'f', parameters: null, strict: null },
      ],
    });
    const offered = (lastJson(up.openai).tools as Json[]).map((tool) => (tool.function as Json).name);
    assert.deepEqual(offered, ['f']);
    up.openai.reset();
    const error = await rejection<InstanceType<typeof OpenAI.APIError>>(
      openai.responses.create({
        model: 'compat',
        input: 'hi',
        tools: [{ type: 'web_search_preview' }],
        tool_choice: { type: 'web_search_preview' },
      }),
    );
    assert.equal(error.status, 400);
    assert.equal(error.param, 'tool_choice');
    assert.equal(up.openai.requests.length, 0);
  });

  it('an input_file with inline file_data is a Chat file part; a file_id is a 400 naming the content', async () => {
    const fileData = 'data:application/pdf;base64,JVBERi0xLjQK';
    await openai.responses.create({
      model: 'compat',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'read this' },
            { type: 'input_file', filename: 'a.pdf', file_data: fileData },
          ],
        },
      ],
    });
    const content = (lastJson(up.openai).messages as Json[])[0].content as Json[];
    assert.deepEqual(content[1], { type: 'file', file: { file_data: fileData, filename: 'a.pdf' } });
    up.openai.reset();
    const byId = await rejection<InstanceType<typeof OpenAI.APIError>>(
      openai.responses.create({
        model: 'compat',
        input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }],
      }),
    );
    assert.deepEqual([byId.status, byId.param], [400, 'input[0].content']);
    assert.equal(up.openai.requests.length, 0);
  });

  it('top_logprobs asks Chat for logprobs; chat-completion-logprobs.json comes back as output_text.logprobs', async () => {
    const recorded = recordedJson('openai', 'chat-completion-logprobs.json') as UpstreamAnswer;
    up.openai.enqueue({ status: 200, body: recorded });
    const response = await openai.responses.create({
      model: 'compat',
      input: 'say hello',
      top_logprobs: 2,
      include: ['message.output_text.logprobs'],
    });
    const sent = lastJson(up.openai);
    assert.deepEqual([sent.logprobs, sent.top_logprobs], [true, 2]);
    const message = response.output.find((item) => item.type === 'message');
    assert.ok(message?.type === 'message');
    const text = message.content[0];
    assert.ok(text.type === 'output_text');
    assert.deepEqual(text.logprobs, recorded.choices[0].logprobs.content);
  });

  it('chat-stream-logprobs.sse: each output_text.delta carries its logprobs, the done events all of them', async () => {
    const recorded = recordedText('openai', 'chat-stream-logprobs.sse');
    up.openai.enqueue({ status: 200, body: recorded, headers: { 'content-type': 'text/event-stream' } });
    const stream = await openai.responses.create({
      model: 'compat',
      input: 'say hello',
      top_logprobs: 2,
      include: ['message.output_text.logprobs'],
      stream: true,
    });
    const deltas: unknown[] = [];
    let done: unknown;
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') deltas.push(...event.logprobs);
      if (event.type === 'response.output_text.done') done = event.logprobs;
      if (event.type === 'response.completed') completed = event.response;
    }
    const expected = recorded
      .split('\n\n')
      .map((event) => event.replace(/^data: /, ''))
      .filter((data) => data.startsWith('{'))
      .flatMap((data) => (JSON.parse(data) as UpstreamChunk).choices[0]?.logprobs?.content ?? []);
    assert.equal(expected.length, 2, 'the recorded stream carries two tokens');
    assert.deepEqual(deltas, expected);
    assert.deepEqual(done, expected);
    const message = completed?.output.find((item) => item.type === 'message');
    assert.ok(message?.type === 'message' && message.content[0].type === 'output_text');
    assert.deepEqual(message.content[0].logprobs, expected);
  });

  it('a Chat stream broken mid-way by openai-stream-server-error-chunk.sse ends the Responses stream with response.failed', async () => {
    up.openai.faultNextStream({
      afterEvents: 2,
      action: { raw: recordedText('openai', 'openai-stream-server-error-chunk.sse') },
    });
    const stream = await openai.responses.create({
      model: 'compat',
      input: 'one two three four',
      stream: true,
    });
    const types: string[] = [];
    let failed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.failed') failed = event.response;
    }
    assert.equal(types.at(-1), 'response.failed', `the last event: ${types.join(', ')}`);
    assert.equal(failed?.status, 'failed');
    assert.ok(failed?.error?.code, 'the failure says its code');
  });
});
