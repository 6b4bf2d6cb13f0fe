import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { openaiClient, rejection, startUpstreams, type Upstreams } from './support.ts';

const LOOKUP_TOOL = {
  type: 'function' as const,
  name: 'lookup',
  description: 'Looks a word up',
  parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  strict: false,
};

/**
 * gpt: OpenAI's Responses natively; compat and gemini: translated to Chat Completions; claude:
 * two translations, Responses -> Chat Completions -> Anthropic Messages.
 */
const MODELS = ['gpt', 'compat', 'gemini', 'claude'] as const;

describe('POST /v1/responses with the official openai client', () => {
  let up: Upstreams;
  let client: OpenAI;
  before(async () => {
    up = await startUpstreams();
    client = openaiClient(up.gw, up.key);
  });
  after(() => up?.close());

  for (const model of MODELS) {
    it(`answers a plain call through ${model}, naming the public model`, async () => {
      const response = await client.responses.create({
        model,
        instructions: 'Be brief.',
        input: 'hello there',
        max_output_tokens: 50,
      });
      assert.equal(response.object, 'response');
      assert.equal(response.status, 'completed');
      assert.equal(response.model, model);
      assert.equal(response.output_text, 'echo: hello there');
      assert.ok((response.usage?.input_tokens ?? 0) > 0);
    });

    it(`streams through ${model}, the response events naming the public model`, async () => {
      const stream = await client.responses.create({ model, input: 'stream me please', stream: true });
      let text = '';
      let completed: OpenAI.Responses.Response | null = null;
      for await (const event of stream) {
        if (event.type === 'response.created') assert.equal(event.response.model, model);
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.completed') completed = event.response;
      }
      assert.equal(text, 'echo: stream me please');
      assert.equal(completed?.model, model);
      assert.equal(completed?.status, 'completed');
    });

    it(`calls a function tool through ${model}`, async () => {
      const response = await client.responses.create({
        model,
        input: 'use the tool for apple',
        tools: [LOOKUP_TOOL],
      });
      const call = response.output.find((item) => item.type === 'function_call');
      assert.ok(call !== undefined && call.type === 'function_call');
      assert.equal(call.name, 'lookup');
      assert.deepEqual(JSON.parse(call.arguments), { echo: 'use the tool for apple' });
    });
  }

  it('answers store: true with the gateway id of the stored response', async () => {
    const response = await client.responses.create({ model: 'compat', input: 'keep this', store: true });
    assert.equal(response.output_text, 'echo: keep this');
    assert.equal((response as { store?: boolean }).store, true);
    assert.match(response.id, /^resp_[0-9a-f]{48}$/);
  });

  it('answers an unknown previous_response_id 404 naming the parameter, before any upstream call', async () => {
    const error = await rejection<InstanceType<typeof OpenAI.APIError>>(
      client.responses.create({ model: 'gpt', input: 'and then?', previous_response_id: 'resp_123' }),
    );
    assert.equal(error.status, 404);
    assert.equal(error.code, 'previous_response_not_found');
    assert.equal(error.param, 'previous_response_id');
    assert.equal(
      up.openai.requests.filter((r) => r.body && (r.body as { input?: string }).input === 'and then?').length,
      0,
    );
  });
});
