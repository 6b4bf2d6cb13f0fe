import type { CallContext } from '../pipeline/call-context.ts';

/** What the expand stage decided for a Responses call, for the answer stage that stores it. */
export interface ResponseCallState {
  /** The id the answer is stored under (the gateway's own); null with `store: false`. */
  storeAs: string | null;
  /** The client's `previous_response_id`, echoed in the answer (the upstream never sees it). */
  previousResponseId: string | null;
}

const SLOT = 'responses-state';

export function callStateOf(ctx: CallContext): ResponseCallState | undefined {
  return ctx.stageState.get(SLOT) as ResponseCallState | undefined;
}

export function setCallState(ctx: CallContext, state: ResponseCallState): void {
  ctx.stageState.set(SLOT, state);
}
