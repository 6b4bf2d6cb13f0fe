import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createDeployment } from '../helpers/admin-api.ts';
import {
  ANTHROPIC_UPSTREAM_KEY,
  type Json,
  OPENAI_UPSTREAM_KEY,
  startUpstreams,
  type Upstreams,
} from './support.ts';

/**
 * Issue 19, item 5: a property-based walk of the OpenAPI document. Every operation gets bodies
 * generated from its request schema, valid and mutated (nulls, wrong types, deep nesting, huge
 * numbers, NUL and lone surrogates, missing and extra fields), sent to a gateway whose fakes answer
 * successfully. Whatever the input: no 5xx, a 4xx in the endpoint's shape, no secret in an answer,
 * and the process alive. Bounded: NUM_RUNS requests, seconds in CI.
 */
const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const MODELS = ['gpt', 'claude', 'gemini', 'nova', 'compat', 'embed', 'image', 'dalle', 'whisper'];

type Schema = Json & {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
};
interface Operation {
  method: string;
  path: string;
  mediaType: 'application/json' | 'multipart/form-data' | null;
  body: Schema | null;
  query: Array<{ name: string; schema: Schema }>;
}

/** A fast-check arbitrary for the values a JSON schema describes (the subset zod-openapi writes). */
function arbitraryOf(schema: Schema, doc: Json, name = '', depth = 0): fc.Arbitrary<unknown> {
  if (schema.$ref !== undefined) {
    const id = schema.$ref.split('/').at(-1) as string;
    return arbitraryOf(((doc.components as Json).schemas as Json)[id] as Schema, doc, name, depth);
  }
  if (name === 'model') return fc.constantFrom(...MODELS);
  if (depth > 5) return fc.constant(null);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => arbitraryOf(s, doc, name, depth + 1)));
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const types = [schema.type ?? []].flat();
  if (types.length > 1) {
    return fc.oneof(...types.map((type) => arbitraryOf({ ...schema, type }, doc, name, depth)));
  }
  const min = (key: string, fallback: number) =>
    typeof schema[key] === 'number' ? (schema[key] as number) : fallback;
  switch (types[0]) {
    case 'string':
      if (schema.format === 'date-time') {
        return fc
          .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString());
      }
      if (schema.format === 'uri') return fc.constantFrom('http://127.0.0.1:9/v1', 'https://example.invalid');
      return fc.string({ minLength: min('minLength', 0), maxLength: Math.max(min('minLength', 0), 12) });
    case 'integer':
      return fc.integer({ min: min('minimum', 0), max: Math.min(min('maximum', 1000), 1_000_000) });
    case 'number':
      return fc.double({
        min: min('minimum', 0),
        max: min('maximum', 1000),
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(
        schema.items ? arbitraryOf(schema.items, doc, '', depth + 1) : fc.jsonValue({ maxDepth: 1 }),
        {
          minLength: min('minItems', 0),
          maxLength: Math.max(min('minItems', 0), 3),
        },
      );
    case 'object': {
      const properties = schema.properties ?? {};
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, value] of Object.entries(properties))
        record[key] = arbitraryOf(value, doc, key, depth + 1);
      return fc.record(record, { requiredKeys: (schema.required ?? []).filter((key) => key in properties) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

const IMAGE =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const TOOL_SCHEMA = { type: 'object', properties: { q: { type: 'string' } } };

/**
 * Realistic bodies of the inference endpoints (tools, tool calls and results, images, system
 * prompts): the request schemas check only what the gateway reads, so bodies generated from them
 * alone rarely reach the translators' deeper paths. A mutation of one of these does.
 */
const EXAMPLES: Record<string, (model: string) => Json> = {
  '/v1/chat/completions': (model) => ({
    model,
    max_tokens: 20,
    stream: false,
    tools: [{ type: 'function', function: { name: 'look', description: 'd', parameters: TOOL_SCHEMA } }],
    tool_choice: 'auto',
    response_format: { type: 'text' },
    messages: [
      { role: 'system', content: 'be brief' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'image_url', image_url: { url: IMAGE } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{"q":"x"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'found' },
    ],
  }),
  '/v1/messages': (model) => ({
    model,
    max_tokens: 20,
    system: [{ type: 'text', text: 'be brief' }],
    tools: [{ name: 'look', description: 'd', input_schema: TOOL_SCHEMA }],
    tool_choice: { type: 'auto' },
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: IMAGE.split(',')[1] } },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'look', input: { q: 'x' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'found' }] },
    ],
  }),
  '/v1/responses': (model) => ({
    model,
    instructions: 'be brief',
    max_output_tokens: 20,
    tools: [{ type: 'function', name: 'look', parameters: TOOL_SCHEMA }],
    input: [
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'hi' },
          { type: 'input_image', image_url: IMAGE },
        ],
      },
      { type: 'function_call', call_id: 'c1', name: 'look', arguments: '{"q":"x"}' },
      { type: 'function_call_output', call_id: 'c1', output: 'found' },
    ],
  }),
  '/v1/embeddings': (model) => ({ model, input: ['a', 'b'], encoding_format: 'float' }),
  '/v1/images/generations': (model) => ({ model, prompt: 'a cat', n: 1, size: '1024x1024' }),
};

const MUTATIONS: Array<(value: unknown) => unknown> = [
  () => null,
  () => 42,
  () => 'text',
  () => [],
  () => ({}),
  () => true,
  () => 1e308,
  () => -(2 ** 63),
  () => 'nul\u0000byte',
  () => 'lone\ud800surrogate',
  () => [{ role: 'user', content: null }],
  (value) => [value, value],
  () => JSON.parse(`${'['.repeat(200)}${']'.repeat(200)}`),
  () => JSON.parse(`${'{"a":'.repeat(100)}1${'}'.repeat(100)}`),
  () => undefined, // the field goes missing
];

/** Every path into `value` (the root included), so a mutation can land anywhere. */
function pathsOf(value: unknown, path: string[] = [], out: string[][] = []): string[][] {
  out.push(path);
  if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) pathsOf(child, [...path, key], out);
  }
  return out;
}

function mutate(value: unknown, pick: number, mutation: number, extraField: boolean): unknown {
  const copy = structuredClone(value);
  const paths = pathsOf(copy);
  const path = paths[pick % paths.length];
  const replacement = MUTATIONS[mutation % MUTATIONS.length](value);
  let result: unknown = copy;
  if (path.length === 0) result = replacement;
  else {
    const parent = path.slice(0, -1).reduce<Json>((node, key) => node[key] as Json, copy as Json);
    const key = path.at(-1) as string;
    if (replacement === undefined) delete parent[key];
    else parent[key] = replacement;
  }
  if (extraField && typeof result === 'object' && result !== null && !Array.isArray(result)) {
    (result as Json).unexpected_field = { nested: ['\u0000'] };
  }
  return result;
}

function operationsOf(doc: Json): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(methods)) {
      const content = (operation.requestBody as Json | undefined)?.content as
        | Record<string, Json>
        | undefined;
      const mediaType = content ? (Object.keys(content)[0] as Operation['mediaType']) : null;
      const parameters = (operation.parameters as Array<{ in: string; name: string; schema: Schema }>) ?? [];
      operations.push({
        method: method.toUpperCase(),
        path,
        mediaType,
        body: mediaType && content ? (content[mediaType].schema as Schema) : null,
        query: parameters.filter((p) => p.in === 'query'),
      });
    }
  }
  return operations;
}

function assertErrorShape(path: string, status: number, text: string): void {
  const body = JSON.parse(text) as Json;
  if (path.startsWith('/v1/messages')) {
    assert.equal(body.type, 'error', text);
    const error = body.error as Json;
    assert.equal(typeof error.type, 'string', text);
    assert.equal(typeof error.message, 'string', text);
    return;
  }
  const error = body.error as Json;
  assert.ok(error !== null && typeof error === 'object', `${status} ${text}`);
  assert.equal(typeof error.message, 'string', text);
  assert.equal(typeof error.type, 'string', text);
  assert.equal(typeof error.code, 'string', text);
  assert.ok(error.param === null || typeof error.param === 'string', text);
}

describe('every operation of the OpenAPI document, fuzzed', () => {
  let up: Upstreams;
  let operations: Operation[];
  let doc: Json;
  let scratchDeploymentId: string;
  const secrets = () => [up.gw.masterKey, OPENAI_UPSTREAM_KEY, ANTHROPIC_UPSTREAM_KEY];

  before(async () => {
    up = await startUpstreams();
    doc = (await (await fetch(`${up.gw.url}/openapi.json`)).json()) as Json;
    operations = operationsOf(doc);
    // PATCH and GET by id go to a deployment no /v1 call uses; DELETE to an id that does not exist.
    scratchDeploymentId = (
      await createDeployment(up.gw, {
        publicModel: 'scratch',
        provider: 'openai',
        upstreamModel: 'gpt-4o-mini',
        baseUrl: up.openai.baseUrl,
        apiKey: OPENAI_UPSTREAM_KEY,
      })
    ).id;
  });
  after(() => up.close());

  async function send(operation: Operation, body: unknown, query: Json): Promise<void> {
    const id = operation.method === 'DELETE' ? 'dep_missing' : scratchDeploymentId;
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
    const path = operation.path.replace('{id}', id);
    const url = `${up.gw.url}${path}${search.size > 0 ? `?${search}` : ''}`;
    const isV1 = path.startsWith('/v1');
    const headers: Record<string, string> = { authorization: `Bearer ${isV1 ? up.key : up.gw.masterKey}` };
    let payload: string | FormData | undefined;
    if (operation.mediaType === 'application/json') {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body ?? null);
    } else if (operation.mediaType === 'multipart/form-data') {
      const form = new FormData();
      for (const [name, value] of Object.entries((body as Json | null) ?? {})) {
        if (['image', 'file', 'mask'].includes(name))
          form.append(name, new Blob([new Uint8Array(64)]), 'f.png');
        else if (value !== undefined)
          form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
      }
      payload = form;
    }
    const res = await fetch(url, { method: operation.method, headers, body: payload });
    const text = await res.text();
    const where = `${operation.method} ${path} ${(typeof payload === 'string' ? payload : '(form)').slice(0, 4000)}`;
    // The one 5xx allowed: a 502/503/504 from an attempt that reached the fake (a generated body
    // the fake itself refused or answered oddly, e.g. half a million images); never a 500.
    const upstreamsDoing =
      isV1 && [502, 503, 504].includes(res.status) && Number(res.headers.get('x-switchyard-attempts')) > 0;
    assert.ok(res.status < 500 || upstreamsDoing, `${where} -> ${res.status} ${text.slice(0, 1500)}`);
    assert.ok(res.headers.get('x-request-id'), `${where}: x-request-id`);
    const answer = `${text} ${JSON.stringify([...res.headers])}`;
    for (const secret of secrets()) assert.ok(!answer.includes(secret), `${where}: a secret in the answer`);
    if (res.status >= 400) assertErrorShape(path, res.status, text);
    // A successful PUT of router settings would change how later calls are routed: restore them.
    if (operation.path === '/admin/router-settings' && operation.method === 'PUT' && res.ok) {
      await fetch(`${up.gw.url}/admin/router-settings`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${up.gw.masterKey}`, 'content-type': 'application/json' },
        body: '{}',
      });
    }
  }

  it('answers every generated body without a 5xx, in the endpoint shape, without secrets', async () => {
    const input = fc.nat({ max: operations.length - 1 }).chain((index) => {
      const operation = operations[index];
      const generated = operation.body ? arbitraryOf(operation.body, doc) : fc.constant(undefined);
      const example = EXAMPLES[operation.path];
      const body =
        example === undefined
          ? generated
          : fc.oneof(
              generated,
              fc.constantFrom(...MODELS).map(example),
              fc.constantFrom(...MODELS).map(example),
            );
      const query: Record<string, fc.Arbitrary<unknown>> = {};
      for (const p of operation.query) query[p.name] = arbitraryOf(p.schema, doc, p.name);
      return fc.record({
        operation: fc.constant(operation),
        body,
        query: fc.record(query, { requiredKeys: [] }),
        mutated: fc.boolean(),
        pick: fc.nat(),
        mutation: fc.nat(),
        extraField: fc.boolean(),
      });
    });
    await fc.assert(
      fc.asyncProperty(input, async (sample) => {
        const body = sample.mutated
          ? mutate(sample.body, sample.pick, sample.mutation, sample.extraField)
          : sample.body;
        const query = sample.mutated
          ? (mutate(sample.query, sample.pick, sample.mutation, false) as Json)
          : sample.query;
        await send(sample.operation, body, typeof query === 'object' && query !== null ? query : {});
      }),
      { numRuns: NUM_RUNS },
    );
    assert.equal((await fetch(`${up.gw.url}/health/live`)).status, 200);
  });

  it('covers every operation of the document', () => {
    const routes = new Set(operations.map((o) => `${o.method} ${o.path}`));
    for (const route of ['POST /v1/messages', 'POST /v1/responses', 'POST /admin/keys', 'GET /admin/logs']) {
      assert.ok(routes.has(route), route);
    }
  });
});
