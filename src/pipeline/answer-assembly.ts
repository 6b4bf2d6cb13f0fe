import type { AnswerAssembler } from '../formats/stream-assembler.ts';
import type { StreamEvent } from '../formats/stream-event.ts';
import type { AttemptResult } from './attempt-result.ts';
import type { CallContext } from './call-context.ts';
import { callSlot } from './call-slot.ts';

/** What an answer stage does with a streamed answer once it ended whole, assembled. */
export type AssembledListener = (answer: unknown) => void | Promise<void>;

type StreamResult = Extract<AttemptResult, { kind: 'stream' }>;

const LISTENERS = callSlot<AssembledListener[]>('pipeline.assembled-listeners');

/**
 * Asks for the call's streamed answer as the JSON answer a plain call would have received, once
 * the stream ended whole (never for a stream that broke, or whose client left). An answer stage
 * calls it while it runs; after the answer stages the pipeline assembles the stream once for
 * every stage that asked (`assembleOnce`), in the order they asked.
 */
export function whenAssembled(ctx: CallContext, listener: AssembledListener): void {
  const listeners = LISTENERS.get(ctx);
  if (listeners === undefined) LISTENERS.set(ctx, [listener]);
  else listeners.push(listener);
}

/** The answer as the stages left it; a stream some stage asked to see assembled is assembled once. */
export function assembleOnce(ctx: CallContext, result: AttemptResult): AttemptResult {
  if (result.kind !== 'stream') return result;
  const listeners = LISTENERS.get(ctx);
  const assembler = listeners === undefined ? undefined : ctx.endpoint.format?.createAssembler();
  if (listeners === undefined || assembler === undefined) return result;
  return { ...result, events: assembling(ctx, result, assembler, listeners) };
}

/** Passes the stream on untouched; once it ended whole, hands the assembled answer to each listener. */
async function* assembling(
  ctx: CallContext,
  stream: StreamResult,
  assembler: AnswerAssembler,
  listeners: readonly AssembledListener[],
): AsyncGenerator<readonly StreamEvent[]> {
  for await (const batch of stream.events) {
    for (const event of batch) assembler.push(event);
    yield batch;
  }
  const answer = assembler.answer(stream.usage());
  if (answer === null || ctx.signal.aborted) return;
  for (const listener of listeners) await listener(answer);
}
