import type { Candidate } from '../deployments/candidate-pools.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { AttemptRecord, CallContext } from '../pipeline/call-context.ts';
import { ROUTING_HEADERS } from '../pipeline/pipeline.ts';
import type { ContentFilterHit, Usage } from '../providers/types.ts';
import { AttemptDeadline } from './attempt-deadline.ts';
import type { CooldownTracker } from './cooldown-tracker.ts';
import type { DeploymentLimits } from './deployment-limits.ts';
import { type InFlightTracker, inFlightLifetimeMs } from './in-flight-tracker.ts';
import type { LatencyTracker } from './latency-tracker.ts';
import type { RouterSettings } from './router-settings-schema.ts';

export interface BookkeepingDeps {
  cooldowns: CooldownTracker;
  inFlight: InFlightTracker;
  latency: LatencyTracker;
  limits: DeploymentLimits;
}

/**
 * The bookkeeping of one upstream attempt: its record in ctx.attempts (for the request record),
 * its total timeout, the deployment's TPM reservation and, when it fails in a way that counts,
 * the deployment's cooldown. Its in-flight entry is kept only under `least-busy` and its latency
 * sample only under `lowest-latency`, the strategies that read them: each is a cache-store round
 * trip no other strategy would repay. Ends exactly once.
 */
export class TrackedAttempt {
  readonly deadline: AttemptDeadline;
  readonly #ctx: CallContext;
  readonly #candidate: Candidate;
  readonly #attemptId: string;
  readonly #settings: RouterSettings;
  readonly #deps: BookkeepingDeps;
  readonly #record: AttemptRecord;
  /** The in-flight entry's lifetime; null when the attempt has none (not `least-busy`). */
  readonly #inFlightLifetimeMs: number | null;
  #ended = false;

  constructor(
    ctx: CallContext,
    candidate: Candidate,
    attemptId: string,
    settings: RouterSettings,
    deps: BookkeepingDeps,
  ) {
    const { deployment } = candidate;
    this.#ctx = ctx;
    this.#candidate = candidate;
    this.#attemptId = attemptId;
    this.#settings = settings;
    this.#deps = deps;
    this.#record = {
      deploymentId: deployment.id,
      provider: deployment.provider,
      upstreamModel: deployment.upstreamModel,
      publicModel: ctx.publicModel,
      startedAtMs: Date.now(),
      latencyMs: 0,
      firstByteMs: null,
      status: null,
      outcome: 'failure',
      error: null,
    };
    ctx.attempts.push(this.#record);
    this.#inFlightLifetimeMs =
      settings.strategy === 'least-busy' ? inFlightLifetimeMs(settings.timeouts.totalMs) : null;
    if (this.#inFlightLifetimeMs !== null)
      deps.inFlight.start(deployment.id, attemptId, this.#inFlightLifetimeMs);
    this.deadline = new AttemptDeadline(ctx.signal, settings.timeouts.totalMs);
  }

  /**
   * The answer reaches the client from this deployment (a stream: its first event arrived at
   * `firstByteAtMs`); the latency sample is the whole attempt for JSON, the first byte for a stream.
   */
  handOver(firstByteAtMs: number | null): void {
    const record = this.#record;
    record.status = 200;
    const deployment = this.#candidate.deployment;
    if (firstByteAtMs !== null) record.firstByteMs = firstByteAtMs - record.startedAtMs;
    if (this.#settings.strategy === 'lowest-latency') {
      this.#deps.latency.record(deployment.id, record.firstByteMs ?? Date.now() - record.startedAtMs);
    }
    this.#ctx.servedBy = deployment;
    this.#ctx.responseHeaders[ROUTING_HEADERS.deployment] = deployment.id;
  }

  /** What the upstream's content filter withheld from the answer, for the request record. */
  filtered(hits: readonly ContentFilterHit[] | null | undefined): void {
    if (hits != null) this.#record.contentFilter = hits;
  }

  /** The answer was delivered whole. */
  async succeed(usage: Usage | null): Promise<void> {
    if (!this.#end(usage, true)) return;
    this.#record.outcome = 'success';
  }

  /**
   * The attempt failed (or the client left, `failure` being no GatewayError): recorded, and
   * counted towards the deployment's cooldown when it counts.
   */
  async fail(failure: unknown, usage: Usage | null = null): Promise<void> {
    if (!this.#end(usage, false) || !(failure instanceof GatewayError)) return;
    this.#record.error = failure;
    this.#record.status ??= failure.status;
    await this.#deps.cooldowns
      .recordFailure(this.#candidate.deployment, this.#attemptId, failure, this.#settings.cooldown)
      .catch(() => false);
  }

  #end(usage: Usage | null, succeeded: boolean): boolean {
    if (this.#ended) return false;
    this.#ended = true;
    this.deadline.clear();
    const deployment = this.#candidate.deployment;
    if (this.#inFlightLifetimeMs !== null) {
      this.#deps.inFlight.end(deployment.id, this.#attemptId, this.#inFlightLifetimeMs);
    }
    this.#record.latencyMs = Date.now() - this.#record.startedAtMs;
    this.#deps.limits.settle(deployment, this.#attemptId, usage, !succeeded);
    return true;
  }
}
