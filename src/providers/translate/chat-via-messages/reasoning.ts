import type { AnthropicMessagesRequest } from '../../../formats/messages/wire.ts';
import { claudeThinkingBudget, MIN_TOP_P_WITH_THINKING } from '../../anthropic/claude-thinking-budget.ts';

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
  const budget = claudeThinkingBudget(effort, request.max_tokens);
  if (budget === null || forcesTool(request) || toolTurnLacksThinking(request)) return;
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
