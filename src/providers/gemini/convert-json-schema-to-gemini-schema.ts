/**
 * JSON Schema (what OpenAI tools and `response_format.json_schema` carry) -> the "select subset of
 * an OpenAPI 3.0 schema object" Gemini takes (API reference: Schema). The differences handled:
 * nullability is `nullable` rather than a `"null"` type; `const` is a one-value `enum`; Gemini's
 * `enum` takes strings only, so a `null` member becomes `nullable` and an enum of numbers or
 * booleans keeps its type and moves its values into the description (see convertEnum); local
 * `$ref`s are inlined (Gemini has no references); keywords outside the subset
 * (`additionalProperties`, `$schema`, `patternProperties`, ...) are left out.
 */
import type { GeminiSchema } from './gemini-wire-types.ts';

type JsonSchema = Record<string, unknown>;

/** Keywords copied as they are. */
const PASSTHROUGH = [
  'title',
  'description',
  'default',
  'example',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'minProperties',
  'maxProperties',
  'pattern',
] as const;

/** Formats Gemini gives meaning to; others are dropped rather than rejected upstream. */
const FORMATS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
});

/** Recursive schemas are cut at this depth of `$ref` expansion. */
export const MAX_REF_DEPTH = 8;

const isObject = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function convertJsonSchemaToGeminiSchema(schema: unknown): GeminiSchema {
  const root = isObject(schema) ? schema : {};
  return convert(root, root, 0);
}

/** True for `{ type: "object" }` with no properties: Gemini refuses such function parameters. */
export function isEmptyObjectSchema(schema: unknown): boolean {
  if (!isObject(schema)) return true;
  const properties = schema.properties;
  return schema.type === 'object' && (!isObject(properties) || Object.keys(properties).length === 0);
}

function resolveRef(ref: string, root: JsonSchema): JsonSchema {
  // Local references only: #/$defs/Name or #/definitions/Name (JSON Pointer, RFC 6901).
  if (!ref.startsWith('#/')) return {};
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    node = isObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;
  }
  return isObject(node) ? node : {};
}

function convert(schema: JsonSchema, root: JsonSchema, refDepth: number): GeminiSchema {
  if (typeof schema.$ref === 'string') {
    if (refDepth >= MAX_REF_DEPTH) return { type: 'object' };
    return convert({ ...resolveRef(schema.$ref, root), ...withoutRef(schema) }, root, refDepth + 1);
  }
  const union = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(union)) return convertUnion(schema, union.filter(isObject), root, refDepth);
  if (Array.isArray(schema.allOf)) return convert(mergeAllOf(schema), root, refDepth);

  const out: GeminiSchema = {};
  const types = Array.isArray(schema.type) ? schema.type.filter((t) => typeof t === 'string') : [schema.type];
  const nonNull = types.filter((t) => t !== 'null' && t !== undefined) as string[];
  if (types.includes('null')) out.nullable = true;
  if (nonNull.length > 1) {
    return { ...out, anyOf: nonNull.map((type) => convert({ ...schema, type }, root, refDepth)) };
  }
  const type = nonNull[0];
  if (type !== undefined) out.type = type;
  Object.assign(out, copyAnnotations(schema));
  if (typeof schema.format === 'string' && type !== undefined && FORMATS[type]?.includes(schema.format)) {
    out.format = schema.format;
  }
  const values = schema.const !== undefined ? [schema.const] : schema.enum;
  if (Array.isArray(values) && values.length > 0) convertEnum(values, out);
  if (isObject(schema.properties)) {
    const properties: Record<string, GeminiSchema> = {};
    for (const [name, property] of Object.entries(schema.properties)) {
      properties[name] = convert(isObject(property) ? property : {}, root, refDepth);
    }
    out.properties = properties;
    out.type ??= 'object';
    if (Array.isArray(schema.required)) {
      out.required = schema.required.filter(
        (name) => typeof name === 'string' && Object.hasOwn(properties, name),
      );
    }
  }
  if (isObject(schema.items)) {
    out.items = convert(schema.items, root, refDepth);
    out.type ??= 'array';
  }
  return out;
}

/** The JSON type of an enum's non-string values, when they share one. */
function valuesType(values: readonly unknown[]): string | undefined {
  if (values.every((v) => typeof v === 'boolean')) return 'boolean';
  if (values.every((v) => Number.isInteger(v))) return 'integer';
  if (values.every((v) => typeof v === 'number')) return 'number';
  return undefined;
}

/**
 * `enum` / `const` onto `out`: `null` members make the schema nullable; string members stay a
 * string enum. Numbers and booleans cannot be a Gemini enum, and turning them into strings would
 * make the model answer `"1"` where the client's schema says `1`: the type is kept (or taken from
 * the values) and the allowed values are listed in the description for the model to follow.
 */
function convertEnum(values: readonly unknown[], out: GeminiSchema): void {
  const members = values.filter((value) => value !== null);
  if (members.length < values.length) out.nullable = true;
  if (members.length === 0) return;
  if (members.every((value) => typeof value === 'string')) {
    out.enum = members as string[];
    out.type ??= 'string';
    return;
  }
  out.type ??= valuesType(members);
  const allowed = `Allowed values: ${members.map((value) => JSON.stringify(value)).join(', ')}.`;
  out.description = out.description ? `${out.description} ${allowed}` : allowed;
}

/** A union with a `null` member becomes `nullable`; a single remaining member is inlined. */
function convertUnion(
  schema: JsonSchema,
  members: JsonSchema[],
  root: JsonSchema,
  refDepth: number,
): GeminiSchema {
  const nonNull = members.filter((member) => member.type !== 'null');
  const nullable = nonNull.length < members.length;
  const rest = { ...schema };
  delete rest.anyOf;
  delete rest.oneOf;
  if (nonNull.length === 1) {
    const inner = convert({ ...nonNull[0], ...copyAnnotations(rest) }, root, refDepth);
    return nullable ? { ...inner, nullable: true } : inner;
  }
  return {
    ...copyAnnotations(rest),
    ...(nullable ? { nullable: true } : {}),
    anyOf: nonNull.map((member) => convert(member, root, refDepth)),
  };
}

function mergeAllOf(schema: JsonSchema): JsonSchema {
  const merged: JsonSchema = { ...schema };
  delete merged.allOf;
  const properties: JsonSchema = isObject(schema.properties) ? { ...schema.properties } : {};
  const required = new Set<unknown>(Array.isArray(schema.required) ? schema.required : []);
  for (const part of (schema.allOf as unknown[]).filter(isObject)) {
    for (const [key, value] of Object.entries(part)) {
      if (key === 'properties' && isObject(value)) Object.assign(properties, value);
      else if (key === 'required' && Array.isArray(value)) for (const name of value) required.add(name);
      else if (!(key in merged)) merged[key] = value;
    }
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.size > 0) merged.required = [...required];
  return merged;
}

function withoutRef(schema: JsonSchema): JsonSchema {
  const rest = { ...schema };
  delete rest.$ref;
  return rest;
}

function copyAnnotations(schema: JsonSchema): GeminiSchema {
  const out: Record<string, unknown> = {};
  for (const key of PASSTHROUGH) if (schema[key] !== undefined) out[key] = schema[key];
  return out as GeminiSchema;
}
