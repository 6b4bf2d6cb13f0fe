/**
 * Chat `reasoning_effort` (Anthropic `thinking` arrives translated to it) -> extended thinking for
 * Claude on Bedrock: `additionalModelRequestFields.thinking = { type: "enabled", budget_tokens }`,
 * which Converse passes to the model (Bedrock user guide, "Extended thinking"). Other models have
 * no such field in Converse: a 400 naming `reasoning_effort`. `none` asks for no thinking.
 *
 * Claude wants `max_tokens` above the budget and refuses `temperature` / `top_p` changes while
 * thinking, so the budget shrinks to fit a client's `max_tokens` and the sampling fields are left
 * out (without `max_tokens`, Bedrock uses the model's own maximum, above every budget).
 */
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ChatCompletionRequest } from '../shared/chat-completions-wire.ts';
import { unsupportedChatParameter } from '../shared/chat-parameter-map.ts';
import { isClaudeModel } from './bedrock-tool-config.ts';
import type { BedrockInferenceConfig } from './bedrock-wire-types.ts';

export const CLAUDE_THINKING_BUDGETS: Readonly<Record<string, number>> = Object.freeze({
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 24576,
});

/** Claude's smallest thinking budget. */
const MIN_BUDGET = 1024;

export interface BedrockThinking {
  thinking?: { type: 'enabled'; budget_tokens: number };
  inferenceConfig: BedrockInferenceConfig;
}

export function bedrockThinking(
  body: ChatCompletionRequest,
  inferenceConfig: BedrockInferenceConfig,
): BedrockThinking {
  const effort = body.reasoning_effort;
  if (effort === undefined || effort === null || effort === 'none') return { inferenceConfig };
  if (
    !isClaudeModel(body.model) ||
    typeof effort !== 'string' ||
    !Object.hasOwn(CLAUDE_THINKING_BUDGETS, effort)
  )
    throw unsupportedChatParameter('reasoning_effort');
  const max = inferenceConfig.maxTokens;
  if (max !== undefined && max <= MIN_BUDGET) {
    throw new GatewayError('invalid_request', {
      param: body.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens',
      message: `With reasoning_effort, the token limit must be above ${MIN_BUDGET} (the smallest thinking budget).`,
    });
  }
  const budget = Math.min(CLAUDE_THINKING_BUDGETS[effort], max === undefined ? Infinity : max - 1);
  const { temperature: _temperature, topP: _topP, ...rest } = inferenceConfig;
  return { thinking: { type: 'enabled', budget_tokens: budget }, inferenceConfig: rest };
}
