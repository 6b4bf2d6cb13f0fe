/**
 * Claude on a cloud platform (Amazon Bedrock's InvokeModel, Google Vertex AI's rawPredict) takes
 * the Messages body Anthropic's API takes, with the platform's differences (Anthropic, "Claude on
 * Amazon Bedrock" and "Claude on Vertex AI"): no `model` (the URL names it), the platform's
 * `anthropic_version` in the body, and on Bedrock the betas in the body as `anthropic_beta`.
 * Everything else (`thinking` with its exact budget, signed and redacted thinking blocks,
 * `cache_control`, `stop_sequences`, `context_management`, tools) is the client's, as sent.
 */

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
  const { model: _model, stream: _stream, anthropic_version: _version, ...rest } = body;
  const out: Record<string, unknown> = { anthropic_version: platform.anthropicVersion, ...rest };
  if (platform.betasInBody && betas.length > 0) out.anthropic_beta = [...betas];
  if (platform.streamInBody && stream) out.stream = true;
  return out;
}

/** The deployment's betas, then the client's comma-separated `anthropic-beta`, without repeats or blanks. */
export function mergedBetas(deployment: readonly string[], client: string | undefined): string[] {
  const fromClient = client === undefined ? [] : client.split(',').map((beta) => beta.trim());
  return [...new Set([...deployment, ...fromClient])].filter((beta) => beta.length > 0);
}
