/**
 * Bedrock Runtime's CountTokens for Claude models (API reference, "CountTokens": `POST
 * /model/{modelId}/count-tokens`, `{ input: { invokeModel: { body } } }` in, `{ inputTokens }`
 * out). The client's Messages body is sent as the InvokeModel body Claude takes on Bedrock, so the
 * count is Claude's own for exactly what the client would send. Other Bedrock models are left to
 * the gateway's estimate: Converse bodies are not what the client sent, and not every model counts.
 */
import { z } from 'zod';
import { claudePlatformBody, mergedBetas } from '../anthropic/claude-body.ts';
import { malformedAnswerError } from '../shared/upstream-error.ts';
import type { TokenCountAdapter } from '../types.ts';
import { BEDROCK_CLAUDE } from './bedrock-claude.ts';
import { bedrockClientBetas } from './bedrock-claude-betas.ts';
import { resolveBedrockEndpoint } from './bedrock-config.ts';
import { bedrockSignedRequest } from './bedrock-signed-request.ts';
import { isClaudeModel } from './bedrock-tool-config.ts';

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
      return bedrockSignedRequest({ target, endpoint, url, payload, stream: false, now: now() });
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
 * The Messages body as Claude's InvokeModel body (bedrock-claude.ts), with the `max_tokens`
 * InvokeModel requires, which does not change the input count (above the thinking budget, which
 * it must exceed).
 */
function invokeModelBody(
  body: Record<string, unknown>,
  clientHeaders: Readonly<Record<string, string>> = {},
): Record<string, unknown> {
  const thinking = body.thinking as { budget_tokens?: unknown } | undefined;
  const budget = typeof thinking?.budget_tokens === 'number' ? thinking.budget_tokens : 0;
  // The betas InvokeModel takes: the SDK's `token-counting-*` for Anthropic's own count endpoint is none.
  const betas = bedrockClientBetas(mergedBetas([], clientHeaders['anthropic-beta']));
  return { max_tokens: budget + 1, ...claudePlatformBody(body, BEDROCK_CLAUDE, betas, false) };
}
