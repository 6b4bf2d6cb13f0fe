import type { CacheStore } from '../cache/cache-store.ts';
import type { CandidatePool } from '../deployments/candidate-pools.ts';
import type { DeploymentDirectory } from '../deployments/deployment-directory.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { estimateInputTokens } from '../formats/estimate-tokens.ts';
import { catalogCostModel } from '../limits/cost.ts';
import { estimateCallTokens, tpmReservation } from '../limits/token-reservation.ts';
import type { AttemptResult } from '../pipeline/attempt-result.ts';
import { type CallContext, estimatedInputTokensOf, pacedInputTokensOf } from '../pipeline/call-context.ts';
import { delayUnlessAborted } from '../pipeline/call-signal.ts';
import { callSlot } from '../pipeline/call-slot.ts';
import { multipartUploadOf } from '../pipeline/endpoint.ts';
import type { FeatureModule } from '../pipeline/feature-module.ts';
import type { FallbackPolicy } from '../pipeline/pipeline.ts';
import type { UpstreamClient } from '../upstream/upstream-client.ts';
import { ClientAbortedError } from '../upstream/upstream-failure.ts';
import { type AttemptDeps, runAttempt } from './attempt-runner.ts';
import { retryDelayMs } from './backoff.ts';
import { CooldownTracker } from './cooldown-tracker.ts';
import { DeploymentLimits } from './deployment-limits.ts';
import { DeploymentPicker } from './deployment-picker.ts';
import { fallbackPolicy } from './fallback-policy.ts';
import { InFlightTracker } from './in-flight-tracker.ts';
import { LatencyTracker } from './latency-tracker.ts';
import type { RouterSettings } from './router-settings-schema.ts';

export interface RouterDeps {
  directory: Pick<DeploymentDirectory, 'poolOf' | 'targetOf'>;
  client: UpstreamClient;
  cache: CacheStore;
  /** The router settings in force (RouterSettingsStore), read once per model of a call. */
  settings: { current(): RouterSettings };
  /** Secrets scrubbed from upstream failures besides each deployment's own credential (the master key). */
  secrets?: readonly string[];
  random?: () => number;
}

/**
 * Pools, strategies, cooldowns and retries (SPEC.md, Runtime behaviours; DESIGN.md section 4:
 * route -> upstream attempt -> classify outcome -> retry). `route` serves one public model from
 * its pool, with up to `retries.maxAttempts` attempts, each retry free to pick another deployment
 * (one not tried yet is preferred); `fallbacks` is the pipeline's view of the fallback chains,
 * which it follows when `route` gives up.
 */
export class Router {
  readonly #deps: RouterDeps;
  readonly #attempts: AttemptDeps;
  readonly #picker: DeploymentPicker;
  readonly #cooldowns: CooldownTracker;
  readonly fallbacks: FallbackPolicy;

  /** Starts listening to the cooldowns of other replicas at once (see CooldownTracker). */
  constructor(deps: RouterDeps) {
    this.#deps = deps;
    const cooldowns = new CooldownTracker(deps.cache);
    this.#cooldowns = cooldowns;
    void cooldowns.watch();
    const inFlight = new InFlightTracker(deps.cache);
    const latency = new LatencyTracker(deps.cache);
    const limits = new DeploymentLimits(deps.cache);
    this.#attempts = {
      client: deps.client,
      directory: deps.directory,
      secrets: deps.secrets ?? [],
      cooldowns,
      inFlight,
      latency,
      limits,
    };
    this.#picker = new DeploymentPicker({ cooldowns, inFlight, latency, limits, random: deps.random });
    this.fallbacks = fallbackPolicy(deps.settings);
  }

  /** Milliseconds until the deployment is back in its pool on this replica; 0 when it is in it. */
  cooldownRemainingMs(deploymentId: string): number {
    return this.#cooldowns.remainingMs(deploymentId);
  }

  /**
   * Stops listening to other replicas' cooldowns. Optional at shutdown: closing the cache store
   * ends the subscription too.
   */
  close(): Promise<void> {
    return this.#cooldowns.close();
  }

  /** The router is the pipeline's `route`, not a stage: its module only closes the cooldown mirror. */
  readonly module: FeatureModule = {
    name: 'router',
    shutdown: [{ phase: 'flush', name: 'router cooldown mirror', run: () => this.close() }],
  };

  /** The CallRouter of the pipeline. */
  readonly route = (ctx: CallContext): Promise<AttemptResult> => this.#route(ctx);

  async #route(ctx: CallContext): Promise<AttemptResult> {
    const settings = this.#deps.settings.current();
    const { candidates: pool, facts } = this.#poolOf(ctx);
    if (pool.length === 0) throw new GatewayError('model_not_found', { param: 'model' });
    // A deployment's own TPM limit reads the input estimate: made here, so a large body's count is paced.
    if (facts.tokenLimited) {
      const tokens = pacedInputTokensOf(ctx, catalogCostModel.estimateInputTokens);
      if (tokens instanceof Promise) await tokens;
    }
    const tried = new Set<string>();
    const excluded = new Set<string>();
    let last: { error: GatewayError; deploymentId: string } | null = null;
    for (let attempt = 1; attempt <= settings.retries.maxAttempts; attempt++) {
      const attemptId = `${ctx.requestId}:${ctx.attempts.length + 1}`;
      const pick = await this.#picker.pick(pool, {
        settings,
        tried,
        excluded,
        attemptId,
        tokens: (limit) => tokensOf(ctx, limit),
      });
      if (pick.kind !== 'picked') throw last?.error ?? unavailableError(pick);
      const { deployment } = pick.candidate;
      if (last !== null) await this.#backoff(ctx, settings, last, deployment.id);
      tried.add(deployment.id);
      try {
        return await runAttempt(ctx, pick.candidate, attemptId, settings, this.#attempts);
      } catch (error) {
        if (!(error instanceof GatewayError) || !retryable(ctx, error)) throw error;
        last = { error, deploymentId: deployment.id };
        if (tooLongAWait(settings, error)) excluded.add(deployment.id);
      }
    }
    throw (last as { error: GatewayError }).error;
  }

  /** The deployments of the model that serve the operation and that pre-flight left eligible. */
  #poolOf(ctx: CallContext): Pick<CandidatePool, 'candidates' | 'facts'> {
    const pool = this.#deps.directory.poolOf(ctx.publicModel, ctx.endpoint.operation);
    const eligible = ctx.eligibleDeploymentIds;
    // Pre-flight hands on the pool's own id set when no check narrowed it.
    if (eligible === undefined || eligible === pool.ids) return pool;
    return { candidates: pool.candidates.filter((c) => eligible.has(c.deployment.id)), facts: pool.facts };
  }

  async #backoff(
    ctx: CallContext,
    settings: RouterSettings,
    last: { error: GatewayError; deploymentId: string },
    next: string,
  ): Promise<void> {
    const delayMs =
      retryDelayMs({
        backoffMs: settings.retries.backoffMs,
        retryAfterSeconds: last.error.retryAfterSeconds ?? undefined,
        sameDeployment: last.deploymentId === next,
        totalMs: settings.timeouts.totalMs,
      }) ?? 0;
    if (delayMs <= 0) return;
    try {
      await delayUnlessAborted(delayMs, ctx.signal);
    } catch {
      throw new ClientAbortedError();
    }
  }
}

/**
 * A failed attempt is retried when its class is retryable (SPEC.md, Errors: classes) and the
 * request can be sent again: a multipart upload is a stream the first attempt consumed.
 */
function retryable(ctx: CallContext, error: GatewayError): boolean {
  return error.retryable && multipartUploadOf(ctx.body)?.opened !== true;
}

/** The upstream asked for a longer wait than a retry may take: that deployment is done for this call. */
function tooLongAWait(settings: RouterSettings, error: GatewayError): boolean {
  if (error.retryAfterSeconds == null) return false;
  const delay = retryDelayMs({
    backoffMs: 0,
    retryAfterSeconds: error.retryAfterSeconds,
    sameDeployment: true,
    totalMs: settings.timeouts.totalMs,
  });
  return delay === null;
}

function unavailableError(
  pick: { kind: 'unavailable'; error: GatewayError } | { kind: 'none' },
): GatewayError {
  return pick.kind === 'unavailable' ? pick.error : new GatewayError('model_not_found', { param: 'model' });
}

/** The call's token estimate for deployments' TPM limits, made the first time one is checked. */
const ESTIMATED_TOKENS = callSlot<ReturnType<typeof estimateCallTokens>>('router.estimatedTokens');

/**
 * The call's TPM reservation under a deployment's `tpmLimit`, estimated once per call (the input
 * estimate shared with pre-flight and the limits through the call context).
 */
function tokensOf(ctx: CallContext, limit: number): number {
  let estimate = ESTIMATED_TOKENS.get(ctx);
  if (estimate === undefined) {
    estimate = estimateCallTokens(
      catalogCostModel,
      ctx.endpoint.operation,
      ctx.body,
      // Made in #route (pacedInputTokensOf) before any deployment's TPM limit is checked.
      estimatedInputTokensOf(ctx, estimateInputTokens),
    );
    ESTIMATED_TOKENS.set(ctx, estimate);
  }
  return tpmReservation(estimate, limit);
}
