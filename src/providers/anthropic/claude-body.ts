/**
 * The Messages body as Claude takes it, on Anthropic's API and on a cloud platform alike.
 *
 * Its JSON Schemas as Claude's structured outputs take them (claude-json-schema.ts, the same
 * adaptation the Chat and Responses routes make): the schema of `output_config.format` (and of
 * the older beta's `output_format`) and the `input_schema` of each strict tool. Claude holds these
 * to structured outputs' limits and answers a schema beyond them with a 400 (`For 'integer' type,
 * properties maximum, minimum are not supported`), so a zod or pydantic schema from an Anthropic
 * client would fail on Claude's native routes too. A tool without `strict` takes any JSON Schema
 * and is sent as it came.
 *
 * Claude on a cloud platform (Amazon Bedrock's InvokeModel, Google Vertex AI's rawPredict) takes
 * the Messages body Anthropic's API takes, with the platform's differences (Anthropic, "Claude on
 * Amazon Bedrock" and "Claude on Vertex AI"): no `model` (the URL names it), the platform's
 * `anthropic_version` in the body, and on Bedrock the betas in the body as `anthropic_beta`.
 * Everything else (`thinking` with its exact budget, signed and redacted thinking blocks,
 * `cache_control`, `stop_sequences`, `context_management`, tools) is the client's, as sent, but
 * for the schemas above and for the first-party attribution line Claude Code opens its system
 * prompt with (`x-anthropic-billing-header: cc_version=...`), which Bedrock refuses as a reserved
 * keyword and which means nothing off Anthropic's own API.
 */
import { claudeJsonSchema } from './claude-json-schema.ts';

type Body = Readonly<Record<string, unknown>>;
type Json = Record<string, unknown>;

const BILLING_HEADER = 'x-anthropic-billing-header:';

export interface ClaudePlatform {
  /** `bedrock-2023-05-31`, `vertex-2023-10-16`. */
  anthropicVersion: string;
  /** Bedrock takes the betas in the body; a platform that takes the header leaves this false. */
  betasInBody: boolean;
  /** Bedrock chooses streaming by its URL and refuses a `stream` field; Vertex reads it. */
  streamInBody: boolean;
}

export function withClaudeSchemas(body: Body): Json {
  const out: Json = { ...body };
  const config = withFormatSchema(body.output_config);
  if (config !== undefined) out.output_config = config;
  const format = withSchema(body.output_format);
  if (format !== undefined) out.output_format = format;
  if (Array.isArray(body.tools)) out.tools = body.tools.map(strictToolAdapted);
  return out;
}

/** The body for `platform`, streamed or not, with `betas` (already merged: mergedBetas). */
export function claudePlatformBody(
  body: Body,
  platform: ClaudePlatform,
  betas: readonly string[],
  stream: boolean,
): Json {
  const { model: _model, stream: _stream, anthropic_version: _version, ...rest } = withClaudeSchemas(body);
  const out: Json = { anthropic_version: platform.anthropicVersion, ...rest };
  if (Array.isArray(rest.system)) out.system = rest.system.filter((block) => !isBillingHeader(block));
  if (platform.betasInBody && betas.length > 0) out.anthropic_beta = [...betas];
  if (platform.streamInBody && stream) out.stream = true;
  return out;
}

/** The deployment's betas, then the client's comma-separated `anthropic-beta`, without repeats or blanks. */
export function mergedBetas(deployment: readonly string[], client: string | undefined): string[] {
  const fromClient = client === undefined ? [] : client.split(',').map((beta) => beta.trim());
  return [...new Set([...deployment, ...fromClient])].filter((beta) => beta.length > 0);
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

function isBillingHeader(block: unknown): boolean {
  const text = (block as { type?: unknown; text?: unknown } | null)?.text;
  return typeof text === 'string' && text.startsWith(BILLING_HEADER);
}
