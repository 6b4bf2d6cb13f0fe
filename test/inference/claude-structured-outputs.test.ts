/**
 * Structured outputs on Claude (issue 31): a zod schema with constraints Claude's structured
 * outputs do not take (`.int().min().max()`, string lengths) reaches Claude adapted
 * (claude-json-schema.ts), not as a 400, from the OpenAI SDK (translated) and from the Anthropic
 * SDK (native Messages: Anthropic and Bedrock's InvokeModel). The fakes refuse such schemas as
 * Claude does (test/fakes/claude-schema-limits.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { z } from 'zod';
import {
  anthropicClient,
  createDeployment,
  type Json,
  lastJson,
  openaiClient,
  startUpstreams,
  type Upstreams,
} from './support.ts';

const PERSON = z.toJSONSchema(
  z.object({ name: z.string().min(1).max(40), age: z.number().int().min(0).max(150) }),
) as Json;

describe('structured outputs on Claude', () => {
  let up: Upstreams;
  let openai: OpenAI;
  before(async () => {
    up = await startUpstreams();
    await createDeployment(up.gw, {
      publicModel: 'bedrock-sonnet',
      provider: 'bedrock',
      upstreamModel: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      baseUrl: up.bedrock.baseUrl,
      apiKey: up.bedrock.apiKey,
      providerOptions: { region: up.bedrock.region },
    });
    openai = openaiClient(up.gw, up.key);
  });
  after(() => up?.close());

  for (const [model, fake] of [
    ['claude', () => up.anthropic],
    ['bedrock-sonnet', () => up.bedrock],
  ] as const) {
    it(`${model}: a zod schema with integer bounds and string lengths reaches Claude adapted`, async () => {
      await openai.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'who?' }],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'person', schema: PERSON, strict: true },
        },
      });
      const schema = ((lastJson(fake()).output_config as Json).format as Json).schema as Json;
      const properties = schema.properties as Record<string, Json>;
      assert.deepEqual(properties.age, { type: 'integer', description: '{minimum: 0, maximum: 150}' });
      assert.equal(properties.name.minLength, undefined);
      assert.match(String(properties.name.description), /minLength: 1/);
      assert.equal(schema.additionalProperties, false);
      assert.equal(schema.$schema, undefined);
    });
  }

  for (const [model, fake] of [
    ['claude', () => up.anthropic],
    ['bedrock-sonnet', () => up.bedrock],
  ] as const) {
    it(`${model}: native Messages passed schemas unadapted; output_config and strict tools now reach Claude adapted`, async () => {
      const anthropic = anthropicClient(up.gw, up.key);
      const loose = { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } };
      const message = await anthropic.messages.create({
        model,
        max_tokens: 50,
        messages: [{ role: 'user', content: 'who?' }],
        output_config: { format: { type: 'json_schema', schema: PERSON } },
        tools: [
          { name: 'strict_tool', strict: true, input_schema: PERSON as Anthropic.Tool.InputSchema },
          { name: 'loose_tool', input_schema: loose as Anthropic.Tool.InputSchema },
        ],
      });
      assert.equal(message.type, 'message');
      const sent = lastJson(fake());
      const schema = ((sent.output_config as Json).format as Json).schema as Json;
      assert.deepEqual((schema.properties as Record<string, Json>).age, {
        type: 'integer',
        description: '{minimum: 0, maximum: 150}',
      });
      const [strict, free] = sent.tools as Json[];
      assert.deepEqual(strict.input_schema, schema);
      // A tool without strict takes any JSON Schema: sent as it came.
      assert.deepEqual(free.input_schema, loose);
    });
  }
});
