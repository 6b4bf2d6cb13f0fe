import type { CallContext } from '../pipeline/call-context.ts';

/** The name of the admission stage, and its key in `CallContext.stageState`. */
export const ADMISSION_STAGE = 'admit-limits';

/** What a call reserved on admission, for the settle observer to reconcile or release. */
export interface Admission {
  keyId: string;
  /** Tokens reserved in the TPM window under the request id; null without a TPM limit. */
  reservedTokens: number | null;
  /** Cents reserved on the budget counter; null without a budget. */
  reservedCents: number | null;
}

export function admissionOf(ctx: CallContext): Admission | undefined {
  return ctx.stageState.get(ADMISSION_STAGE) as Admission | undefined;
}
