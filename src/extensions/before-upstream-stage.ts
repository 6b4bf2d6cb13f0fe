import type { CallContext } from '../pipeline/call-context.ts';
import { type EndpointBody, MULTIPART_UPLOAD } from '../pipeline/endpoint.ts';
import { CONTINUE, type Stage, type StageOutcome } from '../pipeline/stage.ts';
import type { ExtensionRuntime, LoadedExtension } from './extension-runtime.ts';
import { SandboxFailure } from './extension-sandbox.ts';
import { disabledError, hookCall, recordRun, rejection, runHook } from './hook-call.ts';
import type { HookDecision } from './hook-decision.ts';

export const BEFORE_UPSTREAM_STAGE = 'extensions.beforeUpstream';

/**
 * `beforeUpstream` (DESIGN.md section 4: after admission, before the response cache lookup): the
 * extensions that apply to the model run in id order, each seeing the body the one before left.
 * A tripped critical extension refuses the call whichever hook it has, before anything runs; a
 * skipped one is passed over. A model no extension applies to costs one map lookup.
 */
export function beforeUpstreamStage(runtime: ExtensionRuntime): Stage {
  return {
    name: BEFORE_UPSTREAM_STAGE,
    run: (ctx) => {
      const applying = runtime.applying(ctx.publicModel);
      return applying.length === 0 ? CONTINUE : runBefore(ctx, runtime, applying);
    },
  };
}

async function runBefore(
  ctx: CallContext,
  runtime: ExtensionRuntime,
  applying: readonly LoadedExtension[],
): Promise<StageOutcome> {
  refuseTripped(ctx, runtime, applying);
  for (const loaded of applying) {
    if (!loaded.hooks.has('beforeUpstream')) continue;
    if (runtime.stateOf(loaded) !== 'active') {
      recordRun(ctx, loaded, 'beforeUpstream', 'skipped', Date.now(), 0, null);
      continue;
    }
    const check = (decision: HookDecision) => {
      if (decision.kind === 'body') ctx.body = validatedBody(ctx, decision.body);
    };
    const decision = await runHook(ctx, runtime, loaded, 'beforeUpstream', hookCall(ctx, loaded), { check });
    if (decision?.kind === 'reject') throw rejection(loaded, decision);
  }
  return CONTINUE;
}

/** SPEC.md, States and transitions: a tripped critical extension answers 503 for every call it applies to. */
function refuseTripped(
  ctx: CallContext,
  runtime: ExtensionRuntime,
  applying: readonly LoadedExtension[],
): void {
  for (const loaded of applying) {
    if (runtime.stateOf(loaded) !== 'tripped') continue;
    recordRun(
      ctx,
      loaded,
      loaded.hooks.has('beforeUpstream') ? 'beforeUpstream' : 'afterUpstream',
      'disabled',
      Date.now(),
      0,
      null,
    );
    throw disabledError(loaded, null);
  }
}

/**
 * The replaced body, validated by the operation's schema as the client's was: one that does not
 * validate is the extension's failure. The routing is decided already, so `model` and `stream`
 * stay the client's, and a multipart call keeps its upload.
 */
function validatedBody(ctx: CallContext, replacement: Record<string, unknown>): EndpointBody {
  const parsed = ctx.endpoint.bodySchema.safeParse({
    ...replacement,
    model: ctx.body.model,
    stream: ctx.body.stream,
  });
  if (!parsed.success) {
    const where = parsed.error.issues.map((issue) => issue.path.join('.') || '(body)').join(', ');
    throw new SandboxFailure(
      'malformed',
      `malformed result: the replaced body does not validate (at ${where})`,
    );
  }
  const body = parsed.data;
  if (ctx.body.stream === undefined) delete body.stream;
  const upload = ctx.body[MULTIPART_UPLOAD];
  if (upload !== undefined) body[MULTIPART_UPLOAD] = upload;
  return body;
}
