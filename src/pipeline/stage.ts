import type { AttemptResult } from './attempt.ts';
import type { CallContext } from './call-context.ts';

/** What a stage decides, as a tagged outcome the orchestrator switches on: go on, or answer now (a cache hit, an extension's reply). */
export type StageOutcome = { kind: 'continue' } | { kind: 'respond'; result: AttemptResult };

export const CONTINUE: StageOutcome = Object.freeze({ kind: 'continue' });

/** One pre-flight stage of the pipeline; it throws a GatewayError to refuse the call. */
export interface Stage {
  readonly name: string;
  run(ctx: CallContext): StageOutcome | Promise<StageOutcome>;
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
