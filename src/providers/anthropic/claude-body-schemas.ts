/**
 * A Messages body with its JSON Schemas as Claude's structured outputs take them
 * (claude-json-schema.ts, the same adaptation the Chat and Responses routes make): the schema of
 * `output_config.format` (and of the older beta's `output_format`) and the `input_schema` of each
 * strict tool. Claude holds these to structured outputs' limits and answers a schema beyond them
 * with a 400 (`For 'integer' type, properties maximum, minimum are not supported`), so a zod or
 * pydantic schema from an Anthropic client would fail on Claude's native routes too. A tool without
 * `strict` takes any JSON Schema and is sent as it came.
 */
import { claudeJsonSchema } from './claude-json-schema.ts';

type Body = Readonly<Record<string, unknown>>;
type Json = Record<string, unknown>;

export function withClaudeSchemas(body: Body): Json {
  const out: Json = { ...body };
  const config = withFormatSchema(body.output_config);
  if (config !== undefined) out.output_config = config;
  const format = withSchema(body.output_format);
  if (format !== undefined) out.output_format = format;
  if (Array.isArray(body.tools)) out.tools = body.tools.map(strictToolAdapted);
  return out;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `{format: {type: 'json_schema', schema}}` with the schema adapted; undefined when there is none. */
function withFormatSchema(config: unknown): Json | undefined {
  if (!isObject(config)) return undefined;
  const format = withSchema(config.format);
  return format === undefined ? undefined : { ...config, format };
}

function withSchema(format: unknown): Json | undefined {
  if (!isObject(format) || format.type !== 'json_schema' || !isObject(format.schema)) return undefined;
  return { ...format, schema: claudeJsonSchema(format.schema) };
}

function strictToolAdapted(tool: unknown): unknown {
  if (!isObject(tool) || tool.strict !== true || !isObject(tool.input_schema)) return tool;
  return { ...tool, input_schema: claudeJsonSchema(tool.input_schema) };
}
