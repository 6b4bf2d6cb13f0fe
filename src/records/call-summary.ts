import type { GatewayError } from '../errors/gateway-error.ts';
import { EXTENSION_RUNS, type ExtensionRun } from '../extensions/extension-run.ts';
import type { ContentFilterHit } from '../formats/content-filter.ts';
import type { AttemptRecord, CallContext, CallOutcome } from '../pipeline/call-context.ts';
import { RESPONSE_CACHE_STATUS, type ResponseCacheStatus } from '../response-cache/cache-status.ts';

/** How a call ended, as records and metrics name it. `cancelled`: the client went away. */
export type CallStatus = 'success' | 'failure' | 'cancelled';

/** HTTP status the inference layer reports when the client closed the connection (nginx's 499). */
const CLIENT_CLOSED_STATUS = 499;

/** The facts of one finished call that every record kind and the telemetry share. */
export interface CallSummary {
  requestId: string;
  operation: string;
  /** The virtual key's id; null for the master key. */
  keyId: string | null;
  publicModel: string;
  /** The deployment that served the answer, else the last one tried, else null. */
  deploymentId: string | null;
  provider: string | null;
  upstreamModel: string | null;
  stream: boolean;
  startedAtMs: number;
  finishedAtMs: number;
  httpStatus: number;
  status: CallStatus;
  /**
   * The call's error, else, for a call that failed, the last failed attempt's (a stream broken by
   * the client has none); null for a call that succeeded, even after failed attempts (retried to
   * success), whose failures stay on their attempts.
   */
  error: GatewayError | null;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number | null;
  /** Zero for a model without pricing (SPEC.md, Request log records). */
  costCents: number;
  /**
   * What the response cache did: `hit` (answered from it: no upstream attempt, nothing billed),
   * `miss`, `bypass`; null when the cache is off.
   */
  cache: ResponseCacheStatus | null;
  attempts: readonly AttemptRecord[];
  /** The call's tags, the key's defaults included. */
  tags: readonly string[];
  /** The extension hooks that ran on the call, in order. */
  extensions: readonly ExtensionRun[];
  /** The calling key's team; null for the master key or a key without one. */
  teamId: string | null;
  /**
   * What the provider's content filter withheld from the answer (the last attempt's: only an
   * attempt that answered has one); null when nothing was filtered.
   */
  contentFilter: readonly ContentFilterHit[] | null;
}

const NO_EXTENSION_RUNS: readonly ExtensionRun[] = Object.freeze([]);

export function keyIdOf(ctx: CallContext): string | null {
  return ctx.principal.kind === 'virtual' ? ctx.principal.key.id : null;
}

export function teamIdOf(ctx: CallContext): string | null {
  return ctx.principal.kind === 'virtual' ? (ctx.principal.key.team?.id ?? null) : null;
}

export function summarizeCall(
  ctx: CallContext,
  outcome: CallOutcome,
  finishedAtMs = Date.now(),
): CallSummary {
  const last = ctx.attempts.at(-1);
  const served = ctx.servedBy;
  const failed = outcome.error !== null || outcome.streamBroken || outcome.status >= 400;
  const cost = Number.isFinite(ctx.costCents) && ctx.costCents > 0 ? ctx.costCents : 0;
  return {
    requestId: ctx.requestId,
    operation: ctx.endpoint.operation,
    keyId: keyIdOf(ctx),
    publicModel: ctx.publicModel,
    deploymentId: served?.id ?? last?.deploymentId ?? null,
    provider: served?.provider ?? last?.provider ?? null,
    upstreamModel: served?.upstreamModel ?? last?.upstreamModel ?? null,
    stream: ctx.stream,
    startedAtMs: ctx.startedAtMs,
    finishedAtMs,
    httpStatus: outcome.status,
    status: outcome.status === CLIENT_CLOSED_STATUS ? 'cancelled' : failed ? 'failure' : 'success',
    error: outcome.error ?? (failed ? lastFailure(ctx.attempts) : null),
    inputTokens: ctx.usage?.inputTokens ?? 0,
    outputTokens: ctx.usage?.outputTokens ?? 0,
    cachedInputTokens: ctx.usage?.cachedInputTokens ?? null,
    costCents: cost,
    cache: RESPONSE_CACHE_STATUS.get(ctx) ?? null,
    attempts: ctx.attempts,
    tags: ctx.tags,
    extensions: EXTENSION_RUNS.get(ctx) ?? NO_EXTENSION_RUNS,
    teamId: teamIdOf(ctx),
    contentFilter: last?.contentFilter ?? null,
  };
}

function lastFailure(attempts: readonly AttemptRecord[]): GatewayError | null {
  for (let i = attempts.length - 1; i >= 0; i -= 1) {
    const error = attempts[i].error;
    if (error !== null) return error;
  }
  return null;
}
