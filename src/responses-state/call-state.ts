import { callSlot } from '../pipeline/call-slot.ts';

/** What the expand stage decided for a Responses call, for the answer stage that stores it. */
export interface ResponseCallState {
  /** The id the answer is stored under (the gateway's own); null with `store: false`. */
  storeAs: string | null;
  /** The client's `previous_response_id`, echoed in the answer (the upstream never sees it). */
  previousResponseId: string | null;
}

export const RESPONSE_CALL_STATE = callSlot<ResponseCallState>('responses-state');
