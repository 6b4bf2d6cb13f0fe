import type { AnthropicMessagesRequest } from '../../anthropic/anthropic-messages-wire.ts';
import { unsupportedParameter } from '../../shared/unsupported-parameter.ts';

/**
 * `reasoning_effort` (Chat; Responses' `reasoning.effort` arrives as it) -> Claude's thinking
 * budget in tokens. The numbers are the ones Google documents for the same field on Gemini's
 * OpenAI-compatible endpoint (low 1K, medium 8K, high 24K), so one effort costs alike on either;
 * `minimal` is Claude's smallest budget, `xhigh` one step above high. `none` asks for no thinking.
 */
export const CLAUDE_THINKING_BUDGETS: Readonly<Record<string, number>> = Object.freeze({
  minimal: 1024,
  low: 1024,
  medium: 8192,
  high: 24576,
  xhigh: 32768,
});

/** Anthropic's smallest `budget_tokens`. */
export const MIN_THINKING_BUDGET = 1024;

/** With thinking, Claude takes `top_p` only from 0.95 to 1 (and `temperature` only 1). */
const MIN_TOP_P_WITH_THINKING = 0.95;

/**
 * Turns thinking on for a reasoning effort, within Claude's constraints (Anthropic, "Extended
 * thinking"): the budget stays below `max_tokens` (the client's cap counts thinking, as OpenAI's
 * `max_completion_tokens` counts reasoning); thinking is left off when that leaves less than the
 * smallest budget, when `tool_choice` forces a tool, or when the last assistant turn used tools
 * without the thinking Claude would need back. With thinking on, `temperature` and a `top_p`
 * below 0.95 are not sent (Claude refuses them). Every rule is listed in docs/providers.md.
 */
export function applyReasoningEffort(request: AnthropicMessagesRequest, effort: unknown): void {
  if (effort == null || effort === 'none') return;
  if (typeof effort !== 'string' || !Object.hasOwn(CLAUDE_THINKING_BUDGETS, effort)) {
    throw unsupportedParameter(
      'reasoning_effort',
      `reasoning_effort must be one of none, ${Object.keys(CLAUDE_THINKING_BUDGETS).join(', ')}.`,
    );
  }
  const budget = Math.min(CLAUDE_THINKING_BUDGETS[effort], request.max_tokens - 1);
  if (budget < MIN_THINKING_BUDGET || forcesTool(request) || toolTurnLacksThinking(request)) return;
  request.thinking = { type: 'enabled', budget_tokens: budget };
  delete request.temperature;
  if (request.top_p !== undefined && request.top_p < MIN_TOP_P_WITH_THINKING) delete request.top_p;
}

function forcesTool(request: AnthropicMessagesRequest): boolean {
  return request.tool_choice?.type === 'any' || request.tool_choice?.type === 'tool';
}

/**
 * Claude wants the final assistant turn of a tool loop to start with its thinking block. A Chat
 * client that did not keep `thinking_blocks` cannot give it, so such a turn goes without thinking.
 */
function toolTurnLacksThinking(request: AnthropicMessagesRequest): boolean {
  const last = request.messages.findLast((message) => message.role === 'assistant');
  if (last === undefined || typeof last.content === 'string') return false;
  const usesTools = last.content.some((block) => block.type === 'tool_use');
  const first = last.content[0]?.type;
  return usesTools && first !== 'thinking' && first !== 'redacted_thinking';
}
