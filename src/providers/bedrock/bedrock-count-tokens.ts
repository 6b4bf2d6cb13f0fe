/**
 * Bedrock Runtime's CountTokens for Claude models (API reference, "CountTokens": `POST
 * /model/{modelId}/count-tokens`, `{ input: { invokeModel: { body } } }` in, `{ inputTokens }`
 * out). The client's Messages body is sent as the InvokeModel body Claude takes on Bedrock, so the
 * count is Claude's own for exactly what the client would send. Other Bedrock models are left to
 * the gateway's estimate: Converse bodies are not what the client sent, and not every model counts.
 */
import { z } from 'zod';
import { malformedAnswerError } from '../shared/upstream-error.ts';
import type { TokenCountAdapter } from '../types.ts';
import { resolveBedrockEndpoint } from './bedrock-config.ts';
import { bedrockRequest } from './bedrock-signing.ts';
import { isClaudeModel } from './bedrock-tool-config.ts';

/** The `anthropic_version` of a Claude InvokeModel body on Bedrock (Claude Messages API on Bedrock). */
const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/**
 * The beta the Anthropic SDK's `beta.messages.countTokens` adds for Anthropic's own count endpoint
 * (`token-counting-2024-11-01`): not a Claude feature, so not one for Bedrock's InvokeModel body.
 */
const TOKEN_COUNTING_BETA = 'token-counting-';

const countTokensAnswerSchema = z.looseObject({ inputTokens: z.number().int().nonnegative() });

export function bedrockCountTokens(now: () => Date): TokenCountAdapter {
  return {
    supports: isClaudeModel,
    buildRequest({ target, body, clientHeaders }) {
      const endpoint = resolveBedrockEndpoint(target);
      const modelId = encodeURIComponent(foundationModelId(target.upstreamModel));
      const url = `${endpoint.baseUrl}/model/${modelId}/count-tokens`;
      const invokeBody = Buffer.from(JSON.stringify(invokeModelBody(body, clientHeaders))).toString('base64');
      const payload = JSON.stringify({ input: { invokeModel: { body: invokeBody } } });
      const headers = { 'content-type': 'application/json', accept: 'application/json' };
      return bedrockRequest(target, { url, headers, body: payload }, now());
    },
    parseResponse(body, target) {
      const parsed = countTokensAnswerSchema.safeParse(body);
      if (!parsed.success) throw malformedAnswerError(target.provider, 'token count', parsed.error.issues);
      return parsed.data.inputTokens;
    },
  };
}

/**
 * CountTokens takes a foundation model id: a cross-region inference profile (`us.anthropic...`,
 * `global.anthropic...`) counts as the model it routes to, whose tokenizer it uses.
 */
function foundationModelId(modelId: string): string {
  const claude = modelId.indexOf('anthropic.claude-');
  return claude > 0 && !modelId.startsWith('arn:') ? modelId.slice(claude) : modelId;
}

/**
 * The Messages body as Claude's InvokeModel body: no `model` (the path names it), Bedrock's
 * `anthropic_version`, the client's betas as `anthropic_beta` (Bedrock takes them in the body), and
 * the `max_tokens` InvokeModel requires, which does not change the input count (above the thinking
 * budget, which it must exceed).
 */
function invokeModelBody(
  body: Record<string, unknown>,
  clientHeaders: Readonly<Record<string, string>> = {},
): Record<string, unknown> {
  const { model: _model, ...rest } = body;
  const thinking = body.thinking as { budget_tokens?: unknown } | undefined;
  const budget = typeof thinking?.budget_tokens === 'number' ? thinking.budget_tokens : 0;
  const betas = (clientHeaders['anthropic-beta'] ?? '')
    .split(',')
    .map((beta) => beta.trim())
    .filter((beta) => beta !== '' && !beta.startsWith(TOKEN_COUNTING_BETA));
  return {
    anthropic_version: BEDROCK_ANTHROPIC_VERSION,
    max_tokens: budget + 1,
    ...rest,
    ...(betas.length > 0 ? { anthropic_beta: betas } : {}),
  };
}
