/**
 * What Claude refuses in the JSON Schemas its structured outputs enforce (Anthropic, "Structured
 * outputs", JSON Schema limitations): `output_config.format.schema`, the beta's
 * `output_format.schema` and a strict tool's `input_schema`. Numeric bounds, string lengths,
 * `maxItems` and a `minItems` other than 0 or 1 are refused, and every object must set
 * `additionalProperties: false`; the 400's wording is Claude's. A non-strict tool's schema is free.
 */
type Json = Record<string, unknown>;

const UNSUPPORTED: Readonly<Record<string, readonly string[]>> = Object.freeze({
  integer: ['exclusiveMaximum', 'exclusiveMinimum', 'maximum', 'minimum', 'multipleOf'],
  number: ['exclusiveMaximum', 'exclusiveMinimum', 'maximum', 'minimum', 'multipleOf'],
  string: ['maxLength', 'minLength'],
  array: ['maxItems'],
});

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The message of Claude's 400 for the body's first schema beyond its limits, or null. */
export function structuredOutputRefusal(body: Json): string | null {
  const located: Array<[string, unknown]> = [
    [
      'output_config.format.schema',
      ((body.output_config as Json | undefined)?.format as Json | undefined)?.schema,
    ],
    ['output_format.schema', (body.output_format as Json | undefined)?.schema],
    ...((body.tools as Json[] | undefined) ?? []).flatMap(
      (tool, i): Array<[string, unknown]> =>
        tool.strict === true ? [[`tools.${i}.custom.input_schema`, tool.input_schema]] : [],
    ),
  ];
  for (const [where, schema] of located) {
    const refusal = isObject(schema) ? nodeRefusal(schema) : null;
    if (refusal !== null) return `${where}: ${refusal}`;
  }
  return null;
}

function nodeRefusal(node: Json): string | null {
  const type = typeof node.type === 'string' ? node.type : '';
  const present = (UNSUPPORTED[type] ?? []).filter((key) => key in node);
  if (present.length === 1) return `For '${type}' type, property '${present[0]}' is not supported`;
  if (present.length > 1) return `For '${type}' type, properties ${present.join(', ')} are not supported`;
  if (type === 'array' && 'minItems' in node && node.minItems !== 0 && node.minItems !== 1) {
    return "For 'array' type, 'minItems' values other than 0 or 1 are not supported";
  }
  if (type === 'object' && node.additionalProperties !== false) {
    return "For 'object' type, 'additionalProperties' must be explicitly set to false";
  }
  return childRefusal(node);
}

function childRefusal(node: Json): string | null {
  const children: unknown[] = [
    node.items,
    ...Object.values(isObject(node.properties) ? node.properties : {}),
    ...Object.values(isObject(node.$defs) ? node.$defs : {}),
    ...['anyOf', 'allOf', 'oneOf'].flatMap((key) =>
      Array.isArray(node[key]) ? (node[key] as unknown[]) : [],
    ),
  ];
  for (const child of children) {
    const refusal = isObject(child) ? nodeRefusal(child) : null;
    if (refusal !== null) return refusal;
  }
  return null;
}
