import { callSlot } from '../pipeline/call-slot.ts';

/** The name of the admission stage. */
export const ADMISSION_STAGE = 'admit-limits';

/** What a call reserved on admission, for the settle observer to reconcile or release. */
export interface Admission {
  keyId: string;
  /** Tokens reserved in the TPM window under the request id; null without a TPM limit. */
  reservedTokens: number | null;
  /** Cents reserved on the budget counter; null without a budget. */
  reservedCents: number | null;
}

/** What the admission stage reserved for the call; unset when it was not admitted (or not limited). */
export const ADMISSION = callSlot<Admission>(ADMISSION_STAGE);
