import type { Deployment } from '../deployments/deployment.ts';
import type { EndpointBody } from '../pipeline/endpoint.ts';
import type { Operation, Usage } from '../providers/types.ts';
import type { CostModel, TokenLimits } from './cost-model.ts';
import { pricingOf } from './deployment-pricing.ts';
import { TEXT_OUTPUT_OPERATIONS } from './token-reservation.ts';

/**
 * Output tokens assumed when neither the body, nor the catalog's maximum output, nor its context
 * window bounds a model's answer (a model the catalog does not know): docs/configuration.md,
 * Budgets. Such a model's answer can pass it, and the overspend bound with it.
 */
export const UNKNOWN_MODEL_OUTPUT_TOKENS = 32_768;

/**
 * The most output a call can produce on a model: the body's bound, else the catalog's maximum
 * output, else what the context window leaves after the input, else UNKNOWN_MODEL_OUTPUT_TOKENS.
 */
export function outputBound(requested: number | null, limits: TokenLimits, inputTokens: number): number {
  if (requested !== null) return Math.ceil(requested);
  if (limits.maxOutputTokens !== null) return limits.maxOutputTokens;
  if (limits.contextWindow !== null) return Math.max(0, limits.contextWindow - inputTokens);
  return UNKNOWN_MODEL_OUTPUT_TOKENS;
}

export interface WorstCaseInput {
  operation: Operation;
  body: EndpointBody;
  inputTokens: number;
}

/**
 * A call's worst-case cost in cents (DESIGN.md section 5, Budget admission): its input estimate
 * plus its output bound on each deployment that may serve it, at that deployment's price, the
 * highest of the pool (the router may pick any of them). Images are counted from `n`. Unpriced
 * deployments cost 0.
 */
export function worstCaseCents(pool: readonly Deployment[], call: WorstCaseInput, model: CostModel): number {
  const text = TEXT_OUTPUT_OPERATIONS.has(call.operation);
  const requested = text ? model.requestedOutputTokens(call.operation, call.body) : null;
  let highest = 0;
  for (const deployment of pool) {
    const { pricing } = pricingOf(model, deployment);
    if (pricing === null) continue;
    const usage: Usage = { inputTokens: call.inputTokens, outputTokens: 0 };
    if (text) {
      const limits = model.tokenLimits(deployment.provider, deployment.upstreamModel);
      usage.outputTokens = outputBound(requested, limits, call.inputTokens);
    }
    // Image operations are priced per image; `n` is how many the body asks for (OpenAI's default 1).
    if (call.operation.startsWith('images.')) {
      usage.images = typeof call.body.n === 'number' && call.body.n > 0 ? call.body.n : 1;
    }
    highest = Math.max(highest, model.computeCostCents(usage, pricing));
  }
  return highest;
}
