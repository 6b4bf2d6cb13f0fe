import type { ErrorClass } from '../errors/error-classes.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import { EXTENSION_RUNS, type ExtensionRun, type ExtensionRunOutcome } from './extension-run.ts';
import type { ExtensionRuntime, LoadedExtension } from './extension-runtime.ts';
import { type Hook, SandboxFailure } from './extension-sandbox.ts';
import type { HookDecision } from './hook-decision.ts';

/**
 * What a hook sees (DESIGN.md section 5, Extensions): copied into the isolate as JSON, so the
 * hook cannot reach the gateway's objects. `response` only for `afterUpstream`.
 */
export function hookCall(
  ctx: CallContext,
  loaded: LoadedExtension,
  response?: unknown,
): Record<string, unknown> {
  const call: Record<string, unknown> = {
    operation: ctx.endpoint.operation,
    publicModel: ctx.publicModel,
    body: ctx.body,
    requestId: ctx.requestId,
    keyId: ctx.principal.kind === 'virtual' ? ctx.principal.key.id : null,
    config: loaded.definition.config,
  };
  if (response !== undefined) call.response = response;
  return call;
}

export interface HookOptions {
  /** Checks a decision further (the replaced body against the operation's schema); throws SandboxFailure when it does not hold. */
  check?: (decision: HookDecision) => void;
  /** The decision cannot change the call (a stream already sent): recorded as `observed`. */
  observeOnly?: boolean;
}

/**
 * Runs one hook and settles its breaker. A failure (throw, timeout, memory limit, malformed
 * result, a check that does not hold) costs this hook on this call only: a critical extension's
 * call is refused with 503 `extension_disabled`, a non-critical one's goes on (null).
 */
export async function runHook(
  ctx: CallContext,
  runtime: ExtensionRuntime,
  loaded: LoadedExtension,
  hook: Hook,
  call: Record<string, unknown>,
  options: HookOptions = {},
): Promise<HookDecision | null> {
  const startedAtMs = Date.now();
  const started = performance.now();
  try {
    const decision = await runtime.invoke(loaded, hook, call);
    options.check?.(decision);
    runtime.succeeded(loaded);
    const outcome = options.observeOnly === true ? 'observed' : outcomeOf(hook, decision);
    recordRun(ctx, loaded, hook, outcome, startedAtMs, performance.now() - started, null);
    return decision;
  } catch (error) {
    if (!(error instanceof SandboxFailure)) throw error;
    runtime.failed(loaded, error);
    recordRun(ctx, loaded, hook, 'failed', startedAtMs, performance.now() - started, error.message);
    if (loaded.definition.critical) throw disabledError(loaded, error.message);
    return null;
  }
}

/** The 503 of a critical extension: tripped, or failed on this very call. */
export function disabledError(loaded: LoadedExtension, reason: string | null): GatewayError {
  return new GatewayError('extension_disabled', {
    message:
      reason === null
        ? `Extension '${loaded.definition.id}' is disabled by its failure breaker.`
        : `Extension '${loaded.definition.id}' failed on this call.`,
    detail: { extensionId: loaded.definition.id, reason },
  });
}

/**
 * The class of a rejection's status, so each shape names it as its API would (Anthropic: 403 is a
 * `permission_error`, 404 a `not_found_error`); any other 4xx is a bad request.
 */
const REJECTION_CLASSES: Readonly<Record<number, ErrorClass>> = Object.freeze({
  401: 'auth',
  403: 'permission',
  404: 'not_found',
  429: 'rate_limit',
});

/** `{ reject }`: a 4xx in the endpoint's shape, code `extension_rejected`, the extension's id in the record. */
export function rejection(
  loaded: LoadedExtension,
  decision: Extract<HookDecision, { kind: 'reject' }>,
): GatewayError {
  return new GatewayError('extension_rejected', {
    status: decision.status,
    errorClass: REJECTION_CLASSES[decision.status] ?? 'bad_request',
    message: decision.message,
    detail: { extensionId: loaded.definition.id },
    shouldRetry: false,
  });
}

export function recordRun(
  ctx: CallContext,
  loaded: LoadedExtension,
  hook: Hook,
  outcome: ExtensionRunOutcome,
  startedAtMs: number,
  durationMs: number,
  failure: string | null,
): void {
  const run: ExtensionRun = {
    extensionId: loaded.definition.id,
    hook,
    outcome,
    startedAtMs,
    durationMs,
    failure,
  };
  const runs = EXTENSION_RUNS.get(ctx);
  if (runs === undefined) EXTENSION_RUNS.set(ctx, [run]);
  else runs.push(run);
}

function outcomeOf(hook: Hook, decision: HookDecision): ExtensionRunOutcome {
  if (decision.kind === 'reject') return 'rejected';
  if (decision.kind === 'continue') return hook === 'afterUpstream' ? 'observed' : 'continue';
  return 'replaced';
}
