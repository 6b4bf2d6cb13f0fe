/**
 * Gemini fidelity through the official openai client (issue 23): failure finish reasons are
 * errors, reasoning and logprobs round-trip, parallel_tool_calls false holds, enums survive.
 * Recorded answers come from src/providers/gemini/fixtures.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { recordedText } from '../fakes/recorded.ts';
import { admin, lastJson, openaiClient, rejection, startUpstreams, type Upstreams } from './support.ts';

const recorded = (name: string): string => recordedText('gemini', name);
const SSE = { 'content-type': 'text/event-stream' };

describe('Gemini through the openai client', () => {
  let up: Upstreams;
  let client: OpenAI;
  before(async () => {
    up = await startUpstreams();
    // Each injected failure is the call's answer: no retry, no cooldown.
    await admin(up.gw, 'PUT', '/router-settings', {
      retries: { maxAttempts: 1, backoffMs: 0 },
      cooldown: { failureThreshold: 1000, windowMs: 1000, durationMs: 0 },
    });
    client = openaiClient(up.gw, up.key);
  });
  afterEach(() => up.gemini.reset());
  after(() => up?.close());

  it('gemini-malformed-function-call.json: a 502 upstream_generation_failed, not an empty stop', async () => {
    up.gemini.enqueueAnswer({
      status: 200,
      body: JSON.parse(recorded('gemini-malformed-function-call.json')),
    });
    const error = await rejection<InstanceType<typeof OpenAI.APIError>>(
      client.chat.completions.create({
        model: 'gemini',
        messages: [{ role: 'user', content: 'write notes' }],
      }),
    );
    assert.ok(error instanceof OpenAI.APIError);
    assert.equal(error.status, 502);
    assert.equal(error.code, 'upstream_generation_failed');
  });

  it('gemini-stream-malformed-function-call.sse: the text arrives, then an error event, not a clean end', async () => {
    up.gemini.failNext(3, {
      status: 200,
      body: recorded('gemini-stream-malformed-function-call.sse'),
      headers: SSE,
    });
    const stream = await client.chat.completions.create({
      model: 'gemini',
      messages: [{ role: 'user', content: 'write the file' }],
      stream: true,
    });
    let text = '';
    let finish: string | null = null;
    const error = await rejection(
      (async () => {
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? '';
          finish = chunk.choices[0]?.finish_reason ?? finish;
        }
      })(),
    );
    assert.ok(error instanceof OpenAI.APIError, String(error));
    assert.match(error.message, /stopped without a usable answer/);
    assert.equal(text, 'Writing the file now.');
    assert.equal(finish, null);
  });

  it('reasoning_effort, top_k, logprobs and enums reach Gemini; thoughts and logprobs come back', async () => {
    up.gemini.enqueueAnswer({ status: 200, body: JSON.parse(recorded('gemini-thoughts-and-logprobs.json')) });
    const completion = await client.chat.completions.create({
      model: 'gemini',
      messages: [{ role: 'user', content: 'What is 2+2?' }],
      reasoning_effort: 'low',
      logprobs: true,
      top_logprobs: 2,
      tools: [
        {
          type: 'function',
          function: {
            name: 'rate',
            parameters: {
              type: 'object',
              properties: {
                stars: { type: 'integer', enum: [1, 2, 3] },
                mood: { type: ['string', 'null'], enum: ['happy', 'sad', null] },
              },
            },
          },
        },
      ],
      // Not an OpenAI field: the Anthropic translation and Gemini clients send it.
      ...({ top_k: 40 } as object),
    });
    const sent = lastJson(up.gemini) as {
      generationConfig: unknown;
      tools: Array<{ functionDeclarations: Array<{ parameters: unknown }> }>;
    };
    assert.deepEqual(sent.generationConfig, {
      topK: 40,
      responseLogprobs: true,
      logprobs: 2,
      thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
    });
    assert.deepEqual(sent.tools[0].functionDeclarations[0].parameters, {
      type: 'object',
      properties: {
        stars: { type: 'integer', description: 'Allowed values: 1, 2, 3.' },
        mood: { nullable: true, type: 'string', enum: ['happy', 'sad'] },
      },
    });
    const message = completion.choices[0].message as (typeof completion.choices)[0]['message'] & {
      reasoning_content?: string;
    };
    assert.equal(message.content, '4');
    assert.equal(message.reasoning_content, '**Adding the numbers**\n\nTwo plus two is four.');
    assert.deepEqual(
      completion.choices[0].logprobs?.content?.[0].top_logprobs.map((t) => t.token),
      ['4', 'Four'],
    );
  });

  it('gemini-stream-thoughts.sse: thoughts stream as reasoning_content deltas', async () => {
    up.gemini.enqueueAnswer({ status: 200, body: recorded('gemini-stream-thoughts.sse'), headers: SSE });
    const stream = await client.chat.completions.create({
      model: 'gemini',
      messages: [{ role: 'user', content: 'What is 2+2?' }],
      reasoning_effort: 'low',
      stream: true,
    });
    let reasoning = '';
    let text = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as
        | { content?: string | null; reasoning_content?: string }
        | undefined;
      reasoning += delta?.reasoning_content ?? '';
      text += delta?.content ?? '';
    }
    assert.equal(reasoning, '**Adding the numbers**\n\nTwo plus two is four.');
    assert.equal(text, '4');
  });

  it('parallel_tool_calls false: one tool call of gemini-parallel-function-calls.json reaches the client', async () => {
    up.gemini.enqueueAnswer({
      status: 200,
      body: JSON.parse(recorded('gemini-parallel-function-calls.json')),
    });
    const completion = await client.chat.completions.create({
      model: 'gemini',
      messages: [{ role: 'user', content: 'weather in Paris and Rome' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
      parallel_tool_calls: false,
    });
    assert.deepEqual(
      completion.choices[0].message.tool_calls?.map((c) =>
        c.type === 'function' ? c.function.arguments : '',
      ),
      ['{"city":"Paris"}'],
    );
    assert.equal(completion.choices[0].finish_reason, 'tool_calls');
  });
});
