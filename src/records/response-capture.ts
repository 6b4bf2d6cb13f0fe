import type { CallContext } from '../pipeline/call-context.ts';
import { callSlot } from '../pipeline/call-slot.ts';
import type { AnswerStage } from '../pipeline/stage.ts';
import type { StreamEvent } from '../providers/types.ts';

/** The answer a call gave, kept for a payload sample or a span event; streams as their event data. */
export type CapturedResponse = { kind: 'json'; answer: unknown } | { kind: 'stream'; events: string[] };

/** Set for the calls whose answer is to be captured (requestCapture). */
const WANTED = callSlot<true>('records.capture');
const CAPTURED = callSlot<CapturedResponse>('records.response');

/**
 * Bound on a captured stream, in characters of event data: a sample keeps far less, and a span
 * event with a multi-megabyte answer would be refused by most collectors anyway.
 */
export const MAX_CAPTURED_STREAM_CHARS = 1024 * 1024;

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
 * writes the answer without keeping it. Calls that did not ask pass through untouched, and so do
 * answers a stage gave (a response-cache hit): only an upstream's answer is captured.
 */
export const captureResponse: AnswerStage = {
  name: 'records.capture',
  run: (ctx, result, source) => {
    if (source !== 'route' || WANTED.get(ctx) !== true) return result;
    if (result.kind === 'json') {
      CAPTURED.set(ctx, { kind: 'json', answer: result.answer });
      return result;
    }
    const captured: CapturedResponse = { kind: 'stream', events: [] };
    CAPTURED.set(ctx, captured);
    return { ...result, events: tee(result.events, captured.events) };
  },
};

async function* tee(
  batches: AsyncIterable<readonly StreamEvent[]>,
  into: string[],
): AsyncGenerator<readonly StreamEvent[]> {
  let chars = 0;
  for await (const batch of batches) {
    for (const event of batch) {
      if (chars >= MAX_CAPTURED_STREAM_CHARS) break;
      const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
      chars += data.length;
      into.push(data);
    }
    yield batch;
  }
}
