import { unsupportedParameter } from '../shared/unsupported-parameter.ts';

/**
 * `reasoning_effort` (Chat; Responses' `reasoning.effort` arrives as it) -> Claude's thinking
 * budget in tokens, wherever Claude runs (Anthropic, Bedrock). The numbers are the ones Google
 * documents for the same field on Gemini's OpenAI-compatible endpoint (low 1K, medium 8K, high
 * 24K), so one effort costs alike on every provider; `minimal` is Claude's smallest budget,
 * `xhigh` one step above high. `none` asks for no thinking.
 */
export const CLAUDE_THINKING_BUDGETS: Readonly<Record<string, number>> = Object.freeze({
  minimal: 1024,
  low: 1024,
  medium: 8192,
  high: 24576,
  xhigh: 32768,
});

/** Anthropic's smallest `budget_tokens`. */
const MIN_THINKING_BUDGET = 1024;

/** With thinking, Claude takes `top_p` only from 0.95 to 1 (and `temperature` only 1). */
export const MIN_TOP_P_WITH_THINKING = 0.95;

/**
 * The thinking budget for a known effort, kept below `maxTokens` (the client's cap counts
 * thinking, as OpenAI's `max_completion_tokens` counts reasoning); null when that leaves less than
 * Claude's smallest budget. An effort outside the table is a 400 naming `reasoning_effort`.
 */
export function claudeThinkingBudget(effort: unknown, maxTokens: number | undefined): number | null {
  if (typeof effort !== 'string' || !Object.hasOwn(CLAUDE_THINKING_BUDGETS, effort)) {
    throw unsupportedParameter(
      'reasoning_effort',
      `reasoning_effort must be one of none, ${Object.keys(CLAUDE_THINKING_BUDGETS).join(', ')}.`,
    );
  }
  const budget = Math.min(
    CLAUDE_THINKING_BUDGETS[effort],
    maxTokens === undefined ? Infinity : maxTokens - 1,
  );
  return budget < MIN_THINKING_BUDGET ? null : budget;
}
