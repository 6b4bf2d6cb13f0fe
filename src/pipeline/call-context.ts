import type { Principal } from '../auth/principal.ts';
import type { Deployment } from '../deployments/deployment.ts';
import type { GatewayError } from '../errors/gateway-error.ts';
import type { ContentFilterHit, Operation, Usage } from '../providers/types.ts';
import type { AbortSource } from './call-signal.ts';
import type { CallSlots } from './call-slot.ts';
import type { Endpoint, EndpointBody } from './endpoint.ts';

/** One upstream attempt, for the router's bookkeeping and the request record. */
export interface AttemptRecord {
  deploymentId: string;
  provider: string;
  upstreamModel: string;
  publicModel: string;
  startedAtMs: number;
  latencyMs: number;
  /** Time to the first byte of the upstream body (streams). */
  firstByteMs: number | null;
  status: number | null;
  outcome: 'success' | 'failure';
  error: GatewayError | null;
  /** What the upstream's content filter withheld from an answer it gave (AttemptResult.contentFilter). */
  contentFilter?: readonly ContentFilterHit[];
}

/**
 * The typed context that flows through the stages, so what a stage reads is checked by the
 * compiler. It holds the request, the pipeline's own pre-flight results (eligible deployments,
 * the input estimate) and the call's outcome (served by, usage, cost); what a feature keeps for
 * itself, or tells a later reader (the cache status, the extension runs), lives in the slots the
 * feature declares (call-slot.ts). Nothing here knows HTTP.
 */
export interface CallContext {
  readonly requestId: string;
  readonly endpoint: Endpoint;
  readonly principal: Principal;
  readonly startedAtMs: number;
  /** Aborted when the client goes away: cancels the upstream call. */
  readonly signal: AbortSource;
  /**
   * The validated body (an extension's `beforeUpstream` may replace it with one that validates
   * too: extensions/before-upstream-stage.ts). On a multipart endpoint: its text fields, with the single-use upload
   * under `MULTIPART_UPLOAD` (endpoint.ts); check `upload.opened` before a second attempt.
   */
  body: EndpointBody;
  readonly stream: boolean;
  /**
   * The call's tags (`x-switchyard-tags`, then the key's defaults; call-tags.ts), recorded with
   * the call. The shared empty list when there are none.
   */
  readonly tags: readonly string[];
  /** The public model being served (changes when a fallback chain reroutes). */
  publicModel: string;
  /** Headers to add to the answer (rate limits, served-by). */
  readonly responseHeaders: Record<string, string>;
  readonly attempts: AttemptRecord[];
  /** The deployment whose answer reached the client; null until an attempt succeeds. */
  servedBy: Deployment | null;
  usage: Usage | null;
  costCents: number;
  /**
   * Set by the pre-flight stages (src/pipeline/stages/preflight.ts) for `publicModel`: ids of the
   * pool's deployments that accept this call (they serve the operation, and their profile,
   * capabilities and context window allow the body). The router picks only among them. Reset by
   * each run of the pre-flight list, so re-running it for a fallback model replaces it; never
   * empty after a run that passed (a check that leaves none refuses the call). Undefined until
   * the pre-flight stages ran.
   */
  eligibleDeploymentIds?: ReadonlySet<string>;
  /**
   * Estimated input tokens of the whole `body` (formats/estimate-tokens.ts), made once by whichever
   * stage needs it first (the context-window check when the byte bound does not settle it, the
   * limits, the router for a deployment's TPM limit) through `estimatedInputTokensOf`. The body
   * does not change with the model, so a fallback reuses it.
   */
  estimatedInputTokens?: number;
  /**
   * The client's headers that a provider may send on (registry.ts FORWARDED_CLIENT_HEADERS:
   * `anthropic-beta`, `anthropic-version`), by lower-case name; absent ones are not set.
   */
  readonly clientHeaders?: Readonly<Record<string, string>>;
  /** The client's `Cache-Control` header, for the response cache (no-cache, no-store). */
  readonly cacheControl?: string;
  /** What the stages keep between their steps, read and written only through their slots (call-slot.ts). */
  readonly slots: CallSlots;
}

export interface CallOutcome {
  status: number;
  error: GatewayError | null;
  /** True when the stream ended with an error event after its first byte. */
  streamBroken: boolean;
}

/**
 * The call's input estimate like `estimatedInputTokensOf`, from an estimate that may count a large
 * body between turns of the event loop (a promise: formats/estimate-tokens.ts,
 * estimateInputTokensPaced), so the count does not hold the main thread. A number when there is
 * nothing to wait for (the estimate was made before, or now at once); kept on the context either way.
 */
export function pacedInputTokensOf(
  ctx: CallContext,
  estimate: (operation: Operation, body: EndpointBody) => number | Promise<number>,
): number | Promise<number> {
  if (ctx.estimatedInputTokens !== undefined) return ctx.estimatedInputTokens;
  const tokens = estimate(ctx.endpoint.operation, ctx.body);
  if (typeof tokens === 'number') {
    ctx.estimatedInputTokens = tokens;
    return tokens;
  }
  return tokens.then((counted) => {
    ctx.estimatedInputTokens ??= counted;
    return ctx.estimatedInputTokens;
  });
}

/** The call's input estimate, computed at most once and kept on the context for every later reader. */
export function estimatedInputTokensOf(
  ctx: CallContext,
  estimate: (operation: Operation, body: EndpointBody) => number,
): number {
  ctx.estimatedInputTokens ??= estimate(ctx.endpoint.operation, ctx.body);
  return ctx.estimatedInputTokens;
}
