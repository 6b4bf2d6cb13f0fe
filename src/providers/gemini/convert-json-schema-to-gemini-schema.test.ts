import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  convertJsonSchemaToGeminiSchema,
  isEmptyObjectSchema,
} from './convert-json-schema-to-gemini-schema.ts';

test('keywords outside the subset are left out; annotations and bounds are kept', () => {
  assert.deepEqual(
    convertJsonSchemaToGeminiSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      title: 'Query',
      additionalProperties: false,
      properties: {
        q: { type: 'string', description: 'text', minLength: 1, format: 'uri' },
        when: { type: 'string', format: 'date-time' },
        n: { type: 'integer', minimum: 1, maximum: 10, format: 'int32' },
      },
      required: ['q', 'missing'],
    }),
    {
      type: 'object',
      title: 'Query',
      properties: {
        q: { type: 'string', description: 'text', minLength: 1 },
        when: { type: 'string', format: 'date-time' },
        n: { type: 'integer', minimum: 1, maximum: 10, format: 'int32' },
      },
      required: ['q'],
    },
  );
});

test('null in a type list or a union becomes nullable', () => {
  assert.deepEqual(convertJsonSchemaToGeminiSchema({ type: ['integer', 'null'] }), {
    type: 'integer',
    nullable: true,
  });
  assert.deepEqual(
    convertJsonSchemaToGeminiSchema({ anyOf: [{ type: 'string' }, { type: 'null' }], description: 'maybe' }),
    { type: 'string', description: 'maybe', nullable: true },
  );
  assert.deepEqual(convertJsonSchemaToGeminiSchema({ oneOf: [{ type: 'string' }, { type: 'number' }] }), {
    anyOf: [{ type: 'string' }, { type: 'number' }],
  });
  assert.deepEqual(convertJsonSchemaToGeminiSchema({ type: ['string', 'number'] }), {
    anyOf: [{ type: 'string' }, { type: 'number' }],
  });
});

test('a string const is a one-value enum', () => {
  assert.deepEqual(convertJsonSchemaToGeminiSchema({ const: 'fixed' }), { type: 'string', enum: ['fixed'] });
});

test('an enum with null is a nullable string enum (null is not a Gemini enum value)', () => {
  assert.deepEqual(convertJsonSchemaToGeminiSchema({ enum: ['low', 'high', null] }), {
    nullable: true,
    type: 'string',
    enum: ['low', 'high'],
  });
  assert.deepEqual(convertJsonSchemaToGeminiSchema({ type: ['string', 'null'], enum: ['a', null] }), {
    nullable: true,
    type: 'string',
    enum: ['a'],
  });
  assert.deepEqual(convertJsonSchemaToGeminiSchema({ type: 'null', enum: [null] }), { nullable: true });
});

test('an enum of numbers or booleans keeps its type and lists its values in the description', () => {
  assert.deepEqual(
    convertJsonSchemaToGeminiSchema({ type: 'integer', enum: [1, 2, 3], description: 'Stars.' }),
    {
      type: 'integer',
      description: 'Stars. Allowed values: 1, 2, 3.',
    },
  );
  assert.deepEqual(convertJsonSchemaToGeminiSchema({ enum: [0.5, 1, null] }), {
    nullable: true,
    type: 'number',
    description: 'Allowed values: 0.5, 1.',
  });
  assert.deepEqual(convertJsonSchemaToGeminiSchema({ const: true }), {
    type: 'boolean',
    description: 'Allowed values: true.',
  });
});

test('local $refs are inlined; recursion is cut at a bounded depth', () => {
  const schema = {
    type: 'object',
    properties: { home: { $ref: '#/$defs/Address' }, tree: { $ref: '#/$defs/Node' } },
    $defs: {
      Address: { type: 'object', properties: { city: { type: 'string' } } },
      Node: { type: 'object', properties: { child: { $ref: '#/$defs/Node' } } },
    },
  };
  const converted = convertJsonSchemaToGeminiSchema(schema);
  assert.deepEqual(converted.properties?.home, { type: 'object', properties: { city: { type: 'string' } } });
  let depth = 0;
  let node = converted.properties?.tree;
  while (node?.properties?.child) {
    node = node.properties.child;
    depth++;
  }
  assert.equal(depth, 8);
  assert.deepEqual(node, { type: 'object' });
});

test('allOf parts merge their properties and required lists', () => {
  assert.deepEqual(
    convertJsonSchemaToGeminiSchema({
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { b: { type: 'number' } }, required: ['b'] },
      ],
    }),
    { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a', 'b'] },
  );
});

test('an object without properties is recognised as empty', () => {
  assert.equal(isEmptyObjectSchema({ type: 'object', properties: {} }), true);
  assert.equal(isEmptyObjectSchema(undefined), true);
  assert.equal(isEmptyObjectSchema({ type: 'object', properties: { a: {} } }), false);
});
