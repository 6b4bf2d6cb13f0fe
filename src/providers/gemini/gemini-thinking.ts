/**
 * Chat `reasoning_effort` (`none | minimal | low | medium | high`; Anthropic `thinking` arrives
 * translated to it) -> Gemini `generationConfig.thinkingConfig` (Gemini API, "Thinking"). Gemini 3
 * takes a `thinkingLevel`, Gemini 2.5 a `thinkingBudget` in tokens; the two exclude each other.
 * Any effort but `none` also asks for thought summaries (`includeThoughts`), which come back as
 * `reasoning_content`.
 */
import type { ChatCompletionRequest } from '../../formats/chat-completions/wire.ts';
import { unsupportedChatParameter } from '../shared/chat-parameter-map.ts';
import type { GeminiThinkingConfig } from './gemini-wire-types.ts';

/**
 * Gemini 2.5 budgets, the mapping Google documents for its own OpenAI-compatible endpoint (Gemini
 * API, "OpenAI compatibility": low 1K, medium 8K, high 24K tokens; none disables).
 */
export const GEMINI_THINKING_BUDGETS: Readonly<Record<string, number>> = Object.freeze({
  none: 0,
  minimal: 1024,
  low: 1024,
  medium: 8192,
  high: 24576,
});

/** 2.5 Pro cannot turn thinking off: its smallest budget stands for `none`. */
const PRO_MINIMUM_BUDGET = 128;

type ThinkingLevel = NonNullable<GeminiThinkingConfig['thinkingLevel']>;

/**
 * Gemini 3 levels. Flash models take all four; Pro models take `low` and `high` only, so `minimal`
 * rounds up to `low` and `medium` up to `high`. Gemini 3 cannot turn thinking off: `none` is the
 * lowest level the model takes.
 */
const FLASH_LEVELS: Readonly<Record<string, ThinkingLevel>> = Object.freeze({
  none: 'minimal',
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
});
const PRO_LEVELS: Readonly<Record<string, ThinkingLevel>> = Object.freeze({
  none: 'low',
  minimal: 'low',
  low: 'low',
  medium: 'high',
  high: 'high',
});

/** The model id without a `models/` or other resource prefix. */
function modelId(model: string): string {
  return model.slice(model.lastIndexOf('/') + 1).toLowerCase();
}

export function geminiThinkingConfig(body: ChatCompletionRequest): GeminiThinkingConfig | undefined {
  const effort = body.reasoning_effort;
  if (effort === undefined || effort === null) return undefined;
  if (typeof effort !== 'string' || !Object.hasOwn(GEMINI_THINKING_BUDGETS, effort))
    throw unsupportedChatParameter('reasoning_effort');
  const id = modelId(body.model);
  const includeThoughts = effort !== 'none';
  if (id.startsWith('gemini-3')) {
    const levels = id.includes('flash') ? FLASH_LEVELS : PRO_LEVELS;
    return { thinkingLevel: levels[effort], includeThoughts };
  }
  const budget = GEMINI_THINKING_BUDGETS[effort];
  const thinkingBudget = budget === 0 && id.includes('pro') ? PRO_MINIMUM_BUDGET : budget;
  return includeThoughts ? { thinkingBudget, includeThoughts } : { thinkingBudget };
}
