import { OPERATIONS, type Operation } from '../formats/operation.ts';
import type { AnswerAssembler } from '../formats/stream-assembler.ts';
import type { StreamEvent } from '../formats/stream-event.ts';
import type { AttemptResult } from './attempt-result.ts';
import type { CallContext } from './call-context.ts';
import { callSlot } from './call-slot.ts';

/** What a stage decides, as a tagged outcome the orchestrator switches on: go on, or answer now (a cache hit, an extension's reply). */
export type StageOutcome = { kind: 'continue' } | { kind: 'respond'; result: AttemptResult };

export const CONTINUE: StageOutcome = Object.freeze({ kind: 'continue' });

/** One pre-flight stage of the pipeline; it throws a GatewayError to refuse the call. */
export interface Stage {
  readonly name: string;
  /** The operations the stage concerns; absent, every one (see `StageLists`). */
  readonly operations?: readonly Operation[];
  run(ctx: CallContext): StageOutcome | Promise<StageOutcome>;
}

/**
 * Where a call's answer came from: `route` for an upstream's answer through the router, `stage`
 * for one a pre-flight or call stage gave instead (a response-cache hit).
 */
export type AnswerSource = 'route' | 'stage';

/**
 * One stage of the answer path, run in list order on every answer the pipeline returns, whatever
 * its source: each gets the result of the one before and returns the result to pass on. It may
 * return it as it is, replace a JSON answer (a copy of the result: `answer`, and `json` when it
 * changes the text), or wrap a stream's `events` to observe or rewrite its batches as they pass
 * (it must yield every batch it does not mean to drop, and sees the end of the stream only if the
 * client reads it whole). A stage that wants a streamed answer whole asks for it with
 * `whenAssembled` (below) rather than assembling its own copy: the stream is
 * assembled once for all of them. A stage that only concerns upstream answers (the response-cache write)
 * returns a `stage` answer untouched. It must not throw, the answer being decided, with one
 * exception: an extension's `afterUpstream` may refuse a JSON answer with a GatewayError, which the
 * call then answers (never rerouted: extensions/after-upstream.ts).
 */
export interface AnswerStage {
  readonly name: string;
  /** The operations the stage concerns; absent, every one (see `StageLists`). */
  readonly operations?: readonly Operation[];
  run(ctx: CallContext, result: AttemptResult, source: AnswerSource): AttemptResult | Promise<AttemptResult>;
}

/**
 * Passes the answer through the answer stages in order (synchronous stages are not awaited), then
 * assembles a stream once for the stages that asked for it whole.
 */
export async function runAnswerStages(
  stages: readonly AnswerStage[],
  ctx: CallContext,
  result: AttemptResult,
  source: AnswerSource,
): Promise<AttemptResult> {
  let answer = result;
  for (const stage of stages) {
    const passed = stage.run(ctx, answer, source);
    answer = passed instanceof Promise ? await passed : passed;
  }
  return assembleOnce(ctx, answer);
}

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

/**
 * Runs stages in order until one answers. A stage that decides synchronously is not awaited:
 * each `await` is a turn of the microtask queue, and most pre-flight stages are synchronous.
 */
export async function runStages(stages: readonly Stage[], ctx: CallContext): Promise<StageOutcome> {
  for (const stage of stages) {
    const decided = stage.run(ctx);
    const outcome = decided instanceof Promise ? await decided : decided;
    if (outcome.kind === 'respond') return outcome;
  }
  return CONTINUE;
}

/** A call's stages: those of the pipeline that concern its operation, in list order. */
export interface StageLists {
  readonly preflight: readonly Stage[];
  readonly call: readonly Stage[];
  readonly answer: readonly AnswerStage[];
}

/**
 * The lists of each operation, built once: a call runs only the stages of its operation, so a
 * feature that cannot apply to it (stored Responses on a chat call) costs it nothing, not even the
 * stage's own check of the operation.
 */
export function stageListsByOperation(all: StageLists): ReadonlyMap<Operation, StageLists> {
  const concerns = (stage: Stage | AnswerStage, operation: Operation) =>
    stage.operations === undefined || stage.operations.includes(operation);
  return new Map(
    OPERATIONS.map((operation) => [
      operation,
      Object.freeze({
        preflight: Object.freeze(all.preflight.filter((stage) => concerns(stage, operation))),
        call: Object.freeze(all.call.filter((stage) => concerns(stage, operation))),
        answer: Object.freeze(all.answer.filter((stage) => concerns(stage, operation))),
      }),
    ]),
  );
}
