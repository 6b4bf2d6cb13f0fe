import { callSlot } from '../pipeline/call-slot.ts';
import type { BudgetPeriod } from './budget-period.ts';
import type { LimitScope } from './limit-keys.ts';

/** The name of the admission stage. */
export const ADMISSION_STAGE = 'admit-limits';

/** What a call reserved in one scope (its key, or its key's team). */
export interface ScopeReservation {
  scope: LimitScope;
  /** Tokens reserved in the scope's TPM window under the request id; null without a TPM limit. */
  reservedTokens: number | null;
  /** The budget window the call counts against and the cents it reserved; null without a budget. */
  budget: ReservedBudget | null;
}

export interface ReservedBudget {
  /** The cents the call reserved. */
  cents: number;
  /** The budget and its window, as admission saw them. */
  limit: number;
  period: BudgetPeriod | null;
  periodStartMs: number | null;
  resetsAtMs: number | null;
}

/** What a call reserved on admission, for the settle observer to reconcile or release. */
export interface Admission {
  keyId: string;
  /** The key's reservations, then its team's when it has one. */
  scopes: readonly ScopeReservation[];
}

/** What the admission stage reserved for the call; unset when it was not admitted (or not limited). */
export const ADMISSION = callSlot<Admission>(ADMISSION_STAGE);
