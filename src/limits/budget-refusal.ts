import { GatewayError } from '../errors/gateway-error.ts';

export interface BudgetState {
  limit: number;
  /** Settled spend. */
  spent: number;
  /** Reserved by the key's calls in flight. */
  held: number;
  /** The refused request's worst-case cost. */
  worstCase: number;
}

/** Cents as a message writes them: at most four decimals, no float noise. */
function cents(value: number): string {
  return `${Number(Math.max(0, value).toFixed(4))} cents`;
}

/**
 * The budget's 429 (DESIGN.md section 5, Budget admission and exhaustion). Spent (settled spend
 * at or over the budget): `budget_exceeded`, which waiting cannot cure, so no Retry-After (no
 * budget period resets it) and `x-should-retry: false`. Held (budget left, but reserved by calls
 * in flight): `budget_reserved`, Retry-After 1, since it clears as those calls settle. Both say
 * what is left and the request's worst case.
 */
export function budgetRefusal(keyId: string, state: BudgetState): GatewayError {
  const detail = { keyId, ...state };
  const worstCase = `this request could cost up to ${cents(state.worstCase)}`;
  if (state.spent >= state.limit) {
    return new GatewayError('budget_exceeded', {
      message: `This key's budget is exhausted: ${cents(state.spent)} spent of ${cents(state.limit)}, nothing left; ${worstCase}.`,
      retryAfterSeconds: null,
      shouldRetry: false,
      detail,
    });
  }
  return new GatewayError('budget_reserved', {
    message:
      `This key's budget is held by its calls in flight: ${cents(state.limit - state.spent)} left of ` +
      `${cents(state.limit)}, ${cents(state.held)} of it reserved for their worst case; ${worstCase}. ` +
      'Retrying shortly, once they settle, gets through; so do calls with a lower max_tokens, which reserve less.',
    retryAfterSeconds: 1,
    detail,
  });
}
