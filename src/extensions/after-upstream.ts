import type { AttemptResult } from '../pipeline/attempt-result.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import { type AnswerStage, whenAssembled } from '../pipeline/stage.ts';
import type { ExtensionRuntime, LoadedExtension } from './extension-runtime.ts';
import { disabledError, hookCall, recordRun, rejection, runHook } from './hook-call.ts';

type JsonResult = Extract<AttemptResult, { kind: 'json' }>;

export const AFTER_UPSTREAM_STAGE = 'extensions.afterUpstream';

/**
 * `afterUpstream` (DESIGN.md section 4: after the answer is translated, before the cache store):
 * on a JSON answer each extension that applies may replace it or reject the call (the one answer
 * stage that throws: the call then answers the rejection, not rerouted); on a stream it runs once
 * at the end with the assembled answer, and may only observe (the client has it already). A text
 * answer (transcriptions as text, srt, vtt) is not JSON and is left alone, and so is an answer a
 * stage gave (a response-cache hit: the cached answer is the one `afterUpstream` left).
 */
export function afterUpstreamStage(runtime: ExtensionRuntime): AnswerStage {
  return {
    name: AFTER_UPSTREAM_STAGE,
    run: (ctx, result, source) => {
      if (source !== 'route') return result;
      const applying = runtime.applying(ctx.publicModel, 'afterUpstream');
      if (applying.length === 0) return result;
      if (result.kind === 'stream') {
        whenAssembled(ctx, (answer) => observeAtEnd(ctx, runtime, applying, answer));
        return result;
      }
      if (result.textContentType !== undefined) return result;
      return afterJson(ctx, runtime, applying, result);
    },
  };
}

async function afterJson(
  ctx: CallContext,
  runtime: ExtensionRuntime,
  applying: readonly LoadedExtension[],
  result: JsonResult,
): Promise<JsonResult> {
  let answer = result.answer;
  let replaced = false;
  for (const loaded of applying) {
    if (!isActive(ctx, runtime, loaded)) continue;
    const decision = await runHook(ctx, runtime, loaded, 'afterUpstream', hookCall(ctx, loaded, answer));
    if (decision?.kind === 'reject') throw rejection(loaded, decision);
    if (decision?.kind === 'response') {
      answer = decision.response;
      replaced = true;
    }
  }
  // `json` is the upstream's own text: a replaced answer is serialised anew by the writer.
  return replaced ? { ...result, answer, json: undefined } : result;
}

/** Once a stream ended whole, the hooks observe the assembled answer. */
async function observeAtEnd(
  ctx: CallContext,
  runtime: ExtensionRuntime,
  applying: readonly LoadedExtension[],
  answer: unknown,
): Promise<void> {
  for (const loaded of applying) {
    if (runtime.stateOf(loaded) !== 'active') continue;
    try {
      await runHook(ctx, runtime, loaded, 'afterUpstream', hookCall(ctx, loaded, answer), {
        observeOnly: true,
      });
    } catch {
      // A critical extension failing here cannot refuse an answer the client already has: the
      // failure is on the record and counted by its breaker, and the stream ends as it was.
    }
  }
}

/** Whether the hook runs: a skipped extension is passed over; one tripped during the call refuses it. */
function isActive(ctx: CallContext, runtime: ExtensionRuntime, loaded: LoadedExtension): boolean {
  const state = runtime.stateOf(loaded);
  if (state === 'active') return true;
  recordRun(ctx, loaded, 'afterUpstream', state === 'tripped' ? 'disabled' : 'skipped', Date.now(), 0, null);
  if (state === 'tripped') throw disabledError(loaded, null);
  return false;
}
