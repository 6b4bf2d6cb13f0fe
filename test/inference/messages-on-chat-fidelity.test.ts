/**
 * The official `@anthropic-ai/sdk` client on OpenAI-format deployments (messages-via-chat): a
 * Claude Code-like turn is not refused, and what the OpenAI fake receives keeps its meaning
 * (issue 23). Also the structured-outputs fields on a native Anthropic deployment.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import { recordedText } from '../fakes/recorded.ts';
import {
  anthropicClient,
  createDeployment,
  lastJson,
  OPENAI_UPSTREAM_KEY,
  post,
  rejection,
  startUpstreams,
  type Upstreams,
} from './support.ts';

type Json = Record<string, unknown>;
const PDF = 'JVBERi0xLjcKJeLjz9MK';

const fixture = (name: string): string => recordedText('openai', name);

describe('@anthropic-ai/sdk client on OpenAI-format deployments: fidelity', () => {
  let up: Upstreams;
  let client: Anthropic;
  before(async () => {
    up = await startUpstreams();
    client = anthropicClient(up.gw, up.key);
    // A reasoning model (the catalog says o4-mini reasons), on the same OpenAI fake.
    await createDeployment(up.gw, {
      publicModel: 'reasoner',
      provider: 'openai',
      upstreamModel: 'o4-mini',
      baseUrl: up.openai.baseUrl,
      apiKey: OPENAI_UPSTREAM_KEY,
    });
  });
  after(() => up?.close());

  const sent = () => lastJson(up.openai);

  it('a Claude Code-like turn (thinking, cached system, tools) is served; a server tool is a 400 naming it', async () => {
    const message = await client.messages.create({
      model: 'reasoner',
      max_tokens: 16_000,
      thinking: { type: 'enabled', budget_tokens: 8000 },
      system: [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }],
      tools: [
        { name: 'read_file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
      ],
      messages: [{ role: 'user', content: 'hello agent' }],
    });
    assert.equal(message.stop_reason, 'end_turn');
    const body = sent();
    assert.equal(body.reasoning_effort, 'medium');
    // OpenAI refuses fields it does not know: the breakpoint is not sent there...
    assert.deepEqual((body.messages as Json[])[0], {
      role: 'system',
      content: [{ type: 'text', text: 'You are a coding agent.' }],
    });
    // ...and reaches an OpenAI-compatible server (LiteLLM, OpenRouter) as the part's cache_control.
    await client.messages.create({
      model: 'compat',
      max_tokens: 100,
      system: [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'hello agent' }],
    });
    assert.deepEqual((sent().messages as Json[])[0], {
      role: 'system',
      content: [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }],
    });
    const error = await rejection<InstanceType<typeof Anthropic.APIError>>(
      client.messages.create({
        model: 'reasoner',
        max_tokens: 100,
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
        messages: [{ role: 'user', content: 'search' }],
      }),
    );
    assert.equal(error.status, 400);
    assert.match(error.message, /web_search_20250305/);
  });

  it('a tool result holding an image: text in the tool message, the image in the next user message', async () => {
    await client.messages.create({
      model: 'gpt',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'take a screenshot' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'screenshot', input: {} }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [
                { type: 'text', text: 'done' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
              ],
            },
          ],
        },
      ],
    });
    assert.deepEqual((sent().messages as Json[]).slice(2), [
      { role: 'tool', tool_call_id: 'toolu_1', content: 'done' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Attachments of tool result toolu_1:' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
    ]);
  });

  it('a PDF document becomes a Chat file part', async () => {
    await client.messages.create({
      model: 'gpt',
      max_tokens: 100,
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'document',
              source: { type: 'base64', media_type: 'application/pdf', data: PDF },
              title: 'a.pdf',
            },
            { type: 'text', text: 'summarise' },
          ],
        },
      ],
    });
    assert.deepEqual((sent().messages as Json[])[0].content, [
      { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'a.pdf' } },
      { type: 'text', text: 'summarise' },
    ]);
  });

  it('top_k reaches an OpenAI-compatible server and is not sent to OpenAI', async () => {
    // The SDK's types no longer list top_k; the API reference still does.
    const withTopK = (model: string) =>
      ({
        model,
        max_tokens: 20,
        top_k: 40,
        messages: [{ role: 'user', content: 'k' }],
      }) as Anthropic.MessageCreateParamsNonStreaming;
    await client.messages.create(withTopK('compat'));
    assert.equal(sent().top_k, 40);
    await client.messages.create(withTopK('gpt'));
    assert.equal('top_k' in sent(), false);
  });

  it("an upstream's reasoning_content comes back as a thinking block, plain and streamed", async () => {
    up.openai.enqueue({ status: 200, body: JSON.parse(fixture('deepseek-reasoning-content.json')) });
    const plain = await client.messages.create({
      model: 'compat',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'Which is smaller, 9.11 or 9.8?' }],
    });
    assert.deepEqual(
      plain.content.map((block) => block.type),
      ['thinking', 'text'],
    );
    up.openai.enqueue({
      status: 200,
      body: fixture('deepseek-reasoning-content-stream.sse'),
      headers: { 'content-type': 'text/event-stream' },
    });
    const streamed = await client.messages
      .stream({
        model: 'compat',
        max_tokens: 200,
        messages: [{ role: 'user', content: 'Which is smaller?' }],
      })
      .finalMessage();
    const thinking = streamed.content[0];
    assert.ok(thinking.type === 'thinking');
    assert.equal(thinking.thinking, 'Compare the tenths: 1 against 8.');
    const text = streamed.content[1];
    assert.ok(text.type === 'text');
    assert.equal(text.text, '9.11 is smaller.');
  });

  it('native Messages accepts structured outputs as output_config.format and as the beta output_format', async () => {
    const schema = { type: 'object', properties: {}, additionalProperties: false };
    for (const field of [
      { output_config: { format: { type: 'json_schema', schema } } },
      { output_format: { type: 'json_schema', schema } },
    ]) {
      const answer = await post(
        up.gw,
        up.key,
        '/messages',
        { model: 'claude', max_tokens: 20, messages: [{ role: 'user', content: 'json' }], ...field },
        { 'anthropic-version': '2023-06-01' },
      );
      assert.equal(answer.status, 200, answer.text);
      const received = lastJson(up.anthropic);
      for (const [key, value] of Object.entries(field)) assert.deepEqual(received[key], value);
    }
  });
});
