import type { ErrorClass } from '../errors/error-classes.ts';
import type { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { FallbackPolicy } from '../pipeline/pipeline.ts';
import type { FallbackKind, RouterSettings } from './router-settings-schema.ts';

/**
 * Which fallback chain a failure of a model may be rerouted by (SPEC.md, Errors: codes):
 * `context_window` and `content_policy` by their own chains, the retryable classes (what is left
 * once the pool's retries are spent, and `deployments_in_cooldown`) by `general`. A client's own
 * mistake, its key's scope and a missing model are answered as they are.
 */
export const FALLBACK_BY_CLASS: Readonly<Record<ErrorClass, FallbackKind | null>> = Object.freeze({
  bad_request: null,
  context_window: 'context_window',
  content_policy: 'content_policy',
  auth: null,
  permission: null,
  not_found: null,
  rate_limit: 'general',
  server: 'general',
  timeout: 'general',
  unavailable: 'general',
});

/** Codes never rerouted whatever their class: a gateway defect, the gateway's own dependencies. */
const NEVER_REROUTED: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'internal_error',
  'service_unavailable',
  'extension_disabled',
  'extension_rejected',
  'budget_exceeded',
]);

export function fallbackKindOf(error: GatewayError): FallbackKind | null {
  if (NEVER_REROUTED.has(error.code)) return null;
  return FALLBACK_BY_CLASS[error.errorClass];
}

/**
 * The next model of the requested model's chain of `kind` not tried yet in this call, or null.
 * Chains are those of the model the client named, whichever model of the chain failed last: a
 * chain is an operator's ordered list of substitutes for that model, not a graph to walk.
 */
export function nextFallbackModel(
  fallbacks: RouterSettings['fallbacks'],
  kind: FallbackKind,
  requested: string,
  tried: readonly string[],
): string | null {
  const chain = fallbacks[kind][requested] ?? [];
  return chain.find((model) => !tried.includes(model)) ?? null;
}

/**
 * SPEC.md (Errors): the pool and the fallback chain are exhausted: `no_deployments_available`,
 * with the status and class of the last failure (a 429 keeps its Retry-After). In the Anthropic
 * shape it answers as the last failure did: an overload stays 529 `overloaded_error`, the signal
 * Anthropic clients back off on, where the code alone would say `api_error`.
 */
export function chainExhausted(last: GatewayError, tried: readonly string[]): GatewayError {
  return new GatewayError('no_deployments_available', {
    status: last.status,
    errorClass: last.errorClass,
    retryAfterSeconds: last.retryAfterSeconds,
    tokenCounts: last.tokenCounts,
    anthropicAnswer: { type: last.anthropicType, status: last.anthropicStatus },
    upstreamMessage: last.upstreamMessage,
    detail: { models: tried, lastCode: last.code, lastDetail: last.detail },
    cause: last,
  });
}

/** The fallback chains of the router settings in force, for the pipeline's fallback loop. */
export function fallbackPolicy(settings: { current(): RouterSettings }): FallbackPolicy {
  return {
    kindOf: fallbackKindOf,
    next: (kind, requested, tried) =>
      nextFallbackModel(settings.current().fallbacks, kind as FallbackKind, requested, tried),
    exhausted: chainExhausted,
  };
}
