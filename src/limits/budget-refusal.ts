import { GatewayError } from '../errors/gateway-error.ts';
import type { LimitScope } from './limit-keys.ts';

export interface BudgetState {
  limit: number;
  /** Settled spend in the budget's window. */
  spent: number;
  /** Reserved by the scope's calls in flight. */
  held: number;
  /** The refused request's worst-case cost. */
  worstCase: number;
}

/** Cents as a message writes them: at most four decimals, no float noise. */
function cents(value: number): string {
  return `${Number(Math.max(0, value).toFixed(4))} cents`;
}

/**
 * The budget's 429 (DESIGN.md section 5, Budget admission and exhaustion), for a key's budget or
 * its team's. Spent (settled spend at or over the budget): `budget_exceeded`, `x-should-retry:
 * false` and no Retry-After, with or without a period: the official SDKs sit out a Retry-After,
 * and a monthly period's reset is days away, so the client must fail at once and say why; a
 * period's reset time goes in the message and in `x-switchyard-budget-resets-at`. Held (budget
 * left, but reserved by calls in flight): `budget_reserved`, Retry-After 1, since it clears as
 * those calls settle. Both say what is left and the request's worst case.
 */
export function budgetRefusal(
  scope: Pick<LimitScope, 'kind' | 'id'>,
  state: BudgetState,
  resetsAtMs: number | null,
): GatewayError {
  const whose = scope.kind === 'team' ? "This key's team's" : "This key's";
  const detail = { [scope.kind === 'team' ? 'teamId' : 'keyId']: scope.id, ...state };
  const worstCase = `this request could cost up to ${cents(state.worstCase)}`;
  if (state.spent >= state.limit) {
    const resetsAt = resetsAtMs === null ? null : new Date(resetsAtMs).toISOString();
    const resets = resetsAt === null ? '' : ` until ${resetsAt}, when its period resets`;
    return new GatewayError('budget_exceeded', {
      message: `${whose} budget is exhausted${resets}: ${cents(state.spent)} spent of ${cents(state.limit)}, nothing left; ${worstCase}.`,
      retryAfterSeconds: null,
      shouldRetry: false,
      headers: resetsAt === null ? {} : { 'x-switchyard-budget-resets-at': resetsAt },
      detail,
    });
  }
  return new GatewayError('budget_reserved', {
    message:
      `${whose} budget is held by its calls in flight: ${cents(state.limit - state.spent)} left of ` +
      `${cents(state.limit)}, ${cents(state.held)} of it reserved for their worst case; ${worstCase}. ` +
      'Retrying shortly, once they settle, gets through; so do calls with a lower max_tokens, which reserve less.',
    retryAfterSeconds: 1,
    detail,
  });
}
