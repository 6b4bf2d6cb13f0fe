/**
 * Claude on a cloud platform (Amazon Bedrock's InvokeModel, Google Vertex AI's rawPredict) takes
 * the Messages body Anthropic's API takes, with the platform's differences (Anthropic, "Claude on
 * Amazon Bedrock" and "Claude on Vertex AI"): no `model` (the URL names it), the platform's
 * `anthropic_version` in the body, and on Bedrock the betas in the body as `anthropic_beta`.
 * Everything else (`thinking` with its exact budget, signed and redacted thinking blocks,
 * `cache_control`, `stop_sequences`, `context_management`, tools) is the client's, as sent, but
 * for JSON Schemas beyond Claude's structured outputs (claude-body-schemas.ts) and for the
 * first-party attribution line Claude Code opens its system prompt with
 * (`x-anthropic-billing-header: cc_version=...`), which Bedrock refuses as a reserved keyword and
 * which means nothing off Anthropic's own API.
 */
import { withClaudeSchemas } from './claude-body-schemas.ts';

const BILLING_HEADER = 'x-anthropic-billing-header:';

export interface ClaudePlatform {
  /** `bedrock-2023-05-31`, `vertex-2023-10-16`. */
  anthropicVersion: string;
  /** Bedrock takes the betas in the body; a platform that takes the header leaves this false. */
  betasInBody: boolean;
  /** Bedrock chooses streaming by its URL and refuses a `stream` field; Vertex reads it. */
  streamInBody: boolean;
}

/** The body for `platform`, streamed or not, with `betas` (already merged: mergedBetas). */
export function claudePlatformBody(
  body: Readonly<Record<string, unknown>>,
  platform: ClaudePlatform,
  betas: readonly string[],
  stream: boolean,
): Record<string, unknown> {
  const { model: _model, stream: _stream, anthropic_version: _version, ...rest } = withClaudeSchemas(body);
  const out: Record<string, unknown> = { anthropic_version: platform.anthropicVersion, ...rest };
  if (Array.isArray(rest.system)) out.system = rest.system.filter((block) => !isBillingHeader(block));
  if (platform.betasInBody && betas.length > 0) out.anthropic_beta = [...betas];
  if (platform.streamInBody && stream) out.stream = true;
  return out;
}

function isBillingHeader(block: unknown): boolean {
  const text = (block as { type?: unknown; text?: unknown } | null)?.text;
  return typeof text === 'string' && text.startsWith(BILLING_HEADER);
}

/** The deployment's betas, then the client's comma-separated `anthropic-beta`, without repeats or blanks. */
export function mergedBetas(deployment: readonly string[], client: string | undefined): string[] {
  const fromClient = client === undefined ? [] : client.split(',').map((beta) => beta.trim());
  return [...new Set([...deployment, ...fromClient])].filter((beta) => beta.length > 0);
}
