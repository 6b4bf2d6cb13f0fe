/**
 * Chat `reasoning_effort` (Anthropic `thinking` arrives translated to it) -> extended thinking for
 * Claude on Bedrock: `additionalModelRequestFields.thinking = { type: "enabled", budget_tokens }`,
 * which Converse passes to the model (Bedrock user guide, "Extended thinking"). Other models have
 * no such field in Converse: a 400 naming `reasoning_effort`. `none` asks for no thinking.
 *
 * The rules are those of the Chat -> Messages translator, so an effort costs alike on Anthropic and
 * on Bedrock: the same budgets (Google's table for the same field: low 1K, medium 8K, high 24K);
 * the budget stays below the client's token limit (without one Bedrock uses the model's maximum);
 * thinking is left off when that leaves less than Claude's smallest budget, when a tool is forced
 * (`tool_choice` required or named, JSON mode), or when the last assistant turn called tools
 * without the signed thinking Claude wants back (`thinking_blocks`). With thinking on,
 * `temperature` and a `top_p` below 0.95 are left out (Claude refuses them).
 */

import type { ChatCompletionRequest, ChatMessage } from '../../formats/chat-completions/wire.ts';
import { claudeThinkingBudget, MIN_TOP_P_WITH_THINKING } from '../anthropic/claude-thinking-budget.ts';
import { unsupportedParameter } from '../shared/unsupported-parameter.ts';
import { usesJsonResponseTool } from './bedrock-output-format.ts';
import { isClaudeModel } from './bedrock-tool-config.ts';
import type { BedrockInferenceConfig } from './bedrock-wire-types.ts';

export interface BedrockThinking {
  thinking?: { type: 'enabled'; budget_tokens: number };
  inferenceConfig: BedrockInferenceConfig;
}

function forcesTool(body: ChatCompletionRequest): boolean {
  const choice = body.tool_choice;
  return (
    choice === 'required' || (typeof choice === 'object' && choice !== null) || usesJsonResponseTool(body)
  );
}

/** The last assistant turn called tools but carries no signed thinking to send back. */
function toolTurnLacksThinking(messages: readonly ChatMessage[]): boolean {
  const last = messages.findLast((message) => message.role === 'assistant');
  if (last?.role !== 'assistant' || (last.tool_calls ?? []).length === 0) return false;
  return !(last.thinking_blocks ?? []).some((block) => block.type === 'redacted_thinking' || block.signature);
}

export function bedrockThinking(
  body: ChatCompletionRequest,
  inferenceConfig: BedrockInferenceConfig,
): BedrockThinking {
  const effort = body.reasoning_effort;
  if (effort === undefined || effort === null || effort === 'none') return { inferenceConfig };
  if (!isClaudeModel(body.model)) {
    throw unsupportedParameter(
      'reasoning_effort',
      'reasoning_effort is supported on Bedrock for Claude models only.',
    );
  }
  const budget = claudeThinkingBudget(effort, inferenceConfig.maxTokens);
  if (budget === null || forcesTool(body) || toolTurnLacksThinking(body.messages)) return { inferenceConfig };
  const { temperature: _temperature, ...rest } = inferenceConfig;
  if (rest.topP !== undefined && rest.topP < MIN_TOP_P_WITH_THINKING) delete rest.topP;
  return { thinking: { type: 'enabled', budget_tokens: budget }, inferenceConfig: rest };
}
