/**
 * A JSON Schema as Claude's structured outputs take it (Anthropic, "Structured outputs", JSON
 * Schema limitations): objects closed (`additionalProperties: false`), `oneOf` as `anyOf`, string
 * formats and `minItems` only from the supported set, and no numeric, length or pattern
 * constraints. A constraint Claude cannot enforce is not dropped silently: it is folded into the
 * node's description (`{minimum: 1, maximum: 10}`), where the model reads it, as Anthropic's own
 * SDKs do. zod's `.int().min(1)`, pydantic's `Field(ge=1)` and `conint` thus reach Claude instead
 * of a 400.
 */

type Schema = Record<string, unknown>;

const SUPPORTED_FORMATS: ReadonlySet<string> = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'uri',
  'ipv4',
  'ipv6',
  'uuid',
]);

/** Keywords kept as they are (after their sub-schemas are adapted). */
const KEPT = new Set(['type', 'description', 'title', 'required', '$ref']);

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPrimitive(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

export function claudeJsonSchema(schema: unknown): unknown {
  return isSchema(schema) ? adaptNode(schema) : schema;
}

function adaptNode(node: Schema): Schema {
  const out: Schema = {};
  const folded: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema') continue;
    const adapted = adaptKeyword(node, key, value);
    if (adapted === FOLD) folded[key] = value;
    else if (adapted !== undefined) out[key === 'oneOf' ? 'anyOf' : key] = adapted;
  }
  if (out.type === 'object' || isSchema(out.properties)) out.additionalProperties = false;
  const notes = Object.entries(folded).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  if (notes.length > 0) {
    const note = `{${notes.join(', ')}}`;
    out.description = typeof out.description === 'string' ? `${out.description}\n\n${note}` : note;
  }
  return out;
}

const FOLD = Symbol('fold');

/** The adapted value of one keyword, FOLD for one Claude cannot enforce, undefined to leave out. */
function adaptKeyword(node: Schema, key: string, value: unknown): unknown {
  if (KEPT.has(key)) return value;
  switch (key) {
    case 'properties':
    case '$defs':
    case 'definitions':
      return isSchema(value)
        ? Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, claudeJsonSchema(sub)]))
        : FOLD;
    case 'items':
      return claudeJsonSchema(value);
    case 'anyOf':
    case 'oneOf':
    case 'allOf':
      return Array.isArray(value) ? value.map(claudeJsonSchema) : FOLD;
    case 'enum':
      return Array.isArray(value) && value.every(isPrimitive) ? value : FOLD;
    case 'const':
      return isPrimitive(value) ? value : FOLD;
    case 'additionalProperties':
      // Closed by adaptNode for every object; an open or typed map is a constraint to state.
      return value === false ? undefined : FOLD;
    case 'format':
      return typeof value === 'string' && SUPPORTED_FORMATS.has(value) ? value : FOLD;
    case 'minItems':
      return value === 0 || value === 1 ? value : FOLD;
    default:
      // minimum, maximum, exclusive bounds, multipleOf, minLength, maxLength, pattern, maxItems,
      // uniqueItems, default, examples, and any other keyword.
      return node[key] === undefined ? undefined : FOLD;
  }
}
