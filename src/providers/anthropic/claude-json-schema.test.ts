import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claudeJsonSchema } from './claude-json-schema.ts';

test("zod's .int().min().max() and string limits: kept out of the schema, folded into the description", () => {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      age: { type: 'integer', minimum: 0, maximum: 150, description: 'Age in years' },
      name: { type: 'string', minLength: 1, maxLength: 40, pattern: '^[A-Z]' },
      email: { type: 'string', format: 'email' },
      tags: { type: 'array', items: { type: 'string', format: 'lowercase' }, minItems: 2, maxItems: 5 },
      kind: { oneOf: [{ const: 'a' }, { const: 'b' }] },
      extra: { type: 'object', additionalProperties: { type: 'string' } },
    },
    required: ['age', 'name'],
    additionalProperties: true,
  };
  assert.deepEqual(claudeJsonSchema(schema), {
    type: 'object',
    properties: {
      age: { type: 'integer', description: 'Age in years\n\n{minimum: 0, maximum: 150}' },
      name: { type: 'string', description: '{minLength: 1, maxLength: 40, pattern: "^[A-Z]"}' },
      email: { type: 'string', format: 'email' },
      tags: {
        type: 'array',
        items: { type: 'string', description: '{format: "lowercase"}' },
        description: '{minItems: 2, maxItems: 5}',
      },
      kind: { anyOf: [{ const: 'a' }, { const: 'b' }] },
      extra: {
        type: 'object',
        additionalProperties: false,
        description: '{additionalProperties: {"type":"string"}}',
      },
    },
    required: ['age', 'name'],
    additionalProperties: false,
    description: '{additionalProperties: true}',
  });
});

test('definitions and references are adapted in place; a schema Claude takes as it is stays as it is', () => {
  const schema = {
    type: 'object',
    properties: { item: { $ref: '#/$defs/item' } },
    $defs: { item: { type: 'object', properties: { n: { type: 'number', multipleOf: 5 } } } },
    additionalProperties: false,
  };
  const adapted = claudeJsonSchema(schema) as { $defs: { item: unknown } };
  assert.deepEqual(adapted.$defs.item, {
    type: 'object',
    properties: { n: { type: 'number', description: '{multipleOf: 5}' } },
    additionalProperties: false,
  });
  const plain = {
    type: 'object',
    properties: { a: { type: 'string', enum: ['x', 'y'] } },
    required: ['a'],
    additionalProperties: false,
  };
  assert.deepEqual(claudeJsonSchema(plain), plain);
});
