import { OPERATION_SPECS } from '../formats/operation-spec.ts';
import type { EndpointBody } from '../pipeline/endpoint.ts';
import type { Operation } from '../providers/types.ts';
import type { CostModel } from './cost.ts';

/**
 * Output tokens a call reserves in its key's TPM window when it sets no output bound (no
 * `max_tokens`, `max_completion_tokens` or `max_output_tokens`): about a page of text, enough
 * for most answers, and corrected from the upstream's usage when the call ends
 * (docs/configuration.md, Limits). A budget reserves the worst case instead (cost.ts).
 */
export const OUTPUT_RESERVATION_FLOOR_TOKENS = 1024;

/** The tokens a call is expected to use before it is made. */
export interface TokenEstimate {
  inputTokens: number;
  /** The requested output bound, or the floor. */
  outputTokens: number;
}

/** `estimatedInputTokens`: the call's input estimate (call-context.ts, estimatedInputTokensOf). */
export function estimateCallTokens(
  model: CostModel,
  operation: Operation,
  body: EndpointBody,
  estimatedInputTokens: number,
): TokenEstimate {
  const inputTokens = Math.max(0, Math.ceil(estimatedInputTokens));
  if (!OPERATION_SPECS[operation].textOutput) return { inputTokens, outputTokens: 0 };
  const requested = model.requestedOutputTokens(operation, body);
  const outputTokens =
    requested === null ? OUTPUT_RESERVATION_FLOOR_TOKENS : Math.max(0, Math.ceil(requested));
  return { inputTokens, outputTokens };
}

/**
 * The TPM reservation: input plus output bound, capped at the limit so a key with a small TPM
 * limit can still make a call without an output bound (it then needs an empty window). A call
 * whose input alone exceeds the limit reserves its input and is refused, since it could never fit.
 */
export function tpmReservation(estimate: TokenEstimate, limit: number): number {
  if (estimate.inputTokens > limit) return estimate.inputTokens;
  return Math.min(limit, estimate.inputTokens + estimate.outputTokens);
}
