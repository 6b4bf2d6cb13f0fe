import type { AnthropicMessagesRequest } from '../../../formats/messages/wire.ts';
import { unsupportedParameter } from '../../shared/unsupported-parameter.ts';
import type { TranslationTarget } from '../../types.ts';

/**
 * `thinking.budget_tokens` -> Chat `reasoning_effort`: below 4,096 tokens `low`, below 16,384
 * `medium`, otherwise `high` (the thresholds sit between the budgets chat-via-messages asks for
 * low, medium and high, so a round trip keeps the effort).
 */
export const THINKING_BUDGET_THRESHOLDS = Object.freeze({ medium: 4096, high: 16_384 });

/** Anthropic's `output_config.effort` -> `reasoning_effort`; `max` has no Chat value above high. */
const EFFORTS: Readonly<Record<string, string>> = Object.freeze({
  low: 'low',
  medium: 'medium',
  high: 'high',
  max: 'high',
});

type Thinking = { type?: unknown; budget_tokens?: unknown } | null | undefined;

/**
 * The `reasoning_effort` for a Messages request's thinking, or undefined to send none:
 * `output_config.effort` when given, else the budget of `thinking: {type: 'enabled'}`;
 * `adaptive` alone leaves the effort to the model, and `disabled` asks for nothing. A target the
 * catalog says does not reason gets no effort at all (thinking is an option, not the answer).
 */
export function reasoningEffortFor(
  body: AnthropicMessagesRequest,
  target: TranslationTarget | undefined,
): string | undefined {
  const thinking = body.thinking as Thinking;
  const type = thinking?.type;
  if (thinking != null && type !== 'enabled' && type !== 'adaptive' && type !== 'disabled') {
    throw unsupportedParameter('thinking.type');
  }
  const effort = body.output_config?.effort;
  if (effort != null && (typeof effort !== 'string' || !Object.hasOwn(EFFORTS, effort))) {
    throw unsupportedParameter('output_config.effort');
  }
  if (target?.reasoning === false || type === 'disabled') return undefined;
  if (typeof effort === 'string') return EFFORTS[effort];
  if (type !== 'enabled') return undefined;
  const budget = typeof thinking?.budget_tokens === 'number' ? thinking.budget_tokens : 0;
  if (budget < THINKING_BUDGET_THRESHOLDS.medium) return 'low';
  return budget < THINKING_BUDGET_THRESHOLDS.high ? 'medium' : 'high';
}
