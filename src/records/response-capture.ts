import type { CallContext } from '../pipeline/call-context.ts';
import { callSlot } from '../pipeline/call-slot.ts';
import { type AnswerStage, whenAssembled } from '../pipeline/stage.ts';

/** The answer a call gave, kept for a payload sample or a span event; a stream as its assembled answer. */
export interface CapturedResponse {
  answer: unknown;
}

/** Set for the calls whose answer is to be captured (requestCapture). */
const WANTED = callSlot<true>('records.capture');
const CAPTURED = callSlot<CapturedResponse>('records.response');

/** Asks for the answer of this call to be captured (from an observer's onCallStarted). */
export function requestCapture(ctx: CallContext): void {
  WANTED.set(ctx, true);
}

export function capturedResponse(ctx: CallContext): CapturedResponse | null {
  return CAPTURED.get(ctx) ?? null;
}

/**
 * The answer stage keeping the answer of a call that asked for it (requestCapture) on the
 * context: records and telemetry see the call only through the context, and the inference layer
 * writes the answer without keeping it. A streamed answer is the one assembly of the stream every
 * answer stage shares (`whenAssembled`), so a stream that did not end whole keeps none. Calls that
 * did not ask pass through untouched, and so do answers a stage gave (a response-cache hit): only
 * an upstream's answer is captured.
 */
export const captureResponse: AnswerStage = {
  name: 'records.capture',
  run: (ctx, result, source) => {
    if (source !== 'route' || WANTED.get(ctx) !== true) return result;
    if (result.kind === 'json') CAPTURED.set(ctx, { answer: result.answer });
    else whenAssembled(ctx, (answer) => CAPTURED.set(ctx, { answer }));
    return result;
  },
};
