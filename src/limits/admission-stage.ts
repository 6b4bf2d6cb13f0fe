import type { LimitHolder, VirtualKey } from '../auth/principal.ts';
import {
  type CacheStore,
  CacheUnavailableError,
  type CallAdmissionDecision,
  type CallAdmissionRequest,
  type ScopeDecision,
  type ScopeLimits,
} from '../cache/cache-store.ts';
import type { CandidatePool } from '../deployments/candidate-pools.ts';
import type { Deployment } from '../deployments/deployment.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { type CallContext, pacedInputTokensOf } from '../pipeline/call-context.ts';
import { CONTINUE, type Stage, type StageOutcome } from '../pipeline/stage.ts';
import type { Operation } from '../providers/types.ts';
import { ADMISSION, ADMISSION_STAGE, type Admission } from './admission.ts';
import type { BudgetCounter } from './budget-counter.ts';
import { type BudgetPeriod, type BudgetWindow, budgetWindow } from './budget-period.ts';
import { budgetRefusal } from './budget-refusal.ts';
import { type CostModel, worstCaseCents } from './cost.ts';
import { keyScope, LIMIT_KEYS, type LimitScope, RATE_WINDOW_MS, teamScope } from './limit-keys.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';
import type { ReservationLeases } from './reservation-leases.ts';
import { estimateCallTokens, type TokenEstimate, tpmReservation } from './token-reservation.ts';

/** A pool as admission prices it: its deployments, and their ids (pre-flight's unnarrowed set). */
export type RoutedPool = Pick<CandidatePool, 'deployments' | 'ids'>;

export interface AdmissionDeps {
  cache: CacheStore;
  budget: BudgetCounter;
  model: CostModel;
  leases: ReservationLeases;
  /** The deployments that may serve `operation` for `publicModel`: the pool the call is routed in. */
  poolOf(publicModel: string, operation: Operation): RoutedPool;
  /** The clock budget periods are read on (ms since the epoch); Date.now by default. */
  now?(): number;
}

/** What one call asks of each limit of one scope (its key, or its team); null where it has none. */
interface ScopePlan {
  scope: LimitScope;
  requests: { limit: number } | null;
  tokens: { limit: number; cost: number; inputTokens: number } | null;
  /** `cents`: the call's worst-case cost, reserved whole, in the budget window in force. */
  budget: { limit: number; cents: number; period: BudgetPeriod | null; window: BudgetWindow } | null;
}

interface AdmissionPlan {
  keyId: string;
  key: ScopePlan;
  team: ScopePlan | null;
}

/**
 * Admission (DESIGN.md section 4: admit RPM, TPM, budget: reserve), after the model is resolved
 * and the key's scope checked. Every limit of the key and of its team is decided in one atomic
 * cache-store operation (one round trip): either all admit and each takes its share, or the call
 * is refused and takes nothing. Every answer to a call that got here carries the `x-ratelimit-*`
 * headers of the key's windows (its team's when the key has none).
 */
export function admitLimits(deps: AdmissionDeps): Stage {
  return { name: ADMISSION_STAGE, run: (ctx) => admit(ctx, deps) };
}

async function admit(ctx: CallContext, deps: AdmissionDeps): Promise<StageOutcome> {
  const key = limitedKey(ctx);
  if (key === null) return CONTINUE;
  const holders = key.team === null ? [key] : [key, key.team];
  const estimating = holders.some((holder) => holder.tpmLimit !== null || holder.budgetCents !== null);
  let inputTokens = estimating
    ? pacedInputTokensOf(ctx, (op, body) => deps.model.estimateInputTokens(op, body))
    : null;
  if (inputTokens instanceof Promise) inputTokens = await inputTokens;
  const plan = planOf(ctx, deps, key, inputTokens);
  const request = admissionRequest(ctx, plan, deps.leases.leaseMs);
  let decision = await deps.cache.admitCall(request);
  const missing = missingBudgets(plan, decision);
  if (missing.length > 0) {
    await Promise.all(
      missing.map((scope) => deps.budget.seed(scope.scope, scope.budget?.window.startMs ?? null)),
    );
    decision = await deps.cache.admitCall(request);
    if (missingBudgets(plan, decision).length > 0) {
      throw new CacheUnavailableError('the budget counter vanished while it was being seeded');
    }
  }
  const headerSource = decision.requests === null && decision.tokens === null ? decision.team : decision;
  if (headerSource != null) {
    Object.assign(ctx.responseHeaders, rateLimitHeaders(headerSource.requests, headerSource.tokens));
  }
  if (!decision.admitted) refuse(plan, decision);
  const admission: Admission = {
    keyId: plan.keyId,
    scopes: [plan.key, ...(plan.team === null ? [] : [plan.team])].map((scope) => {
      if (scope.budget !== null) deps.leases.hold(scope.scope, ctx.requestId, scope.budget.cents);
      return {
        scope: scope.scope,
        reservedTokens: scope.tokens?.cost ?? null,
        budget: scope.budget && {
          cents: scope.budget.cents,
          limit: scope.budget.limit,
          period: scope.budget.period,
          periodStartMs: scope.budget.window.startMs,
          resetsAtMs: scope.budget.window.resetsAtMs,
        },
      };
    }),
  };
  ADMISSION.set(ctx, admission);
  return CONTINUE;
}

/** The scopes whose budget counter the cache store does not have (lost, or a new period's). */
function missingBudgets(plan: AdmissionPlan, decision: CallAdmissionDecision): ScopePlan[] {
  const missing: ScopePlan[] = [];
  if (decision.budget?.status === 'missing') missing.push(plan.key);
  if (plan.team !== null && decision.team?.budget?.status === 'missing') missing.push(plan.team);
  return missing;
}

function scopeLimits(plan: ScopePlan, leaseMs: number): ScopeLimits {
  const { scope, requests, tokens, budget } = plan;
  return {
    requests: requests && { key: LIMIT_KEYS.rpm(scope), limit: requests.limit },
    tokens: tokens && { key: LIMIT_KEYS.tpm(scope), limit: tokens.limit, cost: tokens.cost },
    budget: budget && {
      key: LIMIT_KEYS.budget(scope, budget.window.startMs),
      heldKey: LIMIT_KEYS.budgetHeld(scope),
      limit: budget.limit,
      amount: budget.cents,
      leaseMs,
    },
  };
}

function admissionRequest(ctx: CallContext, plan: AdmissionPlan, leaseMs: number): CallAdmissionRequest {
  const request: CallAdmissionRequest = {
    id: ctx.requestId,
    windowMs: RATE_WINDOW_MS,
    ...scopeLimits(plan.key, leaseMs),
  };
  if (plan.team !== null) request.team = scopeLimits(plan.team, leaseMs);
  return request;
}

function hasLimits(holder: LimitHolder): boolean {
  return holder.rpmLimit !== null || holder.tpmLimit !== null || holder.budgetCents !== null;
}

/** The call's virtual key when it or its team has a limit; else null (nothing to admit). */
function limitedKey(ctx: CallContext): VirtualKey | null {
  if (ctx.principal.kind !== 'virtual') return null;
  const key = ctx.principal.key;
  return hasLimits(key) || (key.team !== null && hasLimits(key.team)) ? key : null;
}

/** `inputTokens`: the call's input estimate, null when no TPM or budget needs it. */
function planOf(
  ctx: CallContext,
  deps: AdmissionDeps,
  key: VirtualKey,
  inputTokens: number | null,
): AdmissionPlan {
  const team = key.team;
  const operation = ctx.endpoint.operation;
  const estimate =
    inputTokens === null ? null : estimateCallTokens(deps.model, operation, ctx.body, inputTokens);
  let worstCase: number | undefined;
  const cents = (inputTokens: number): number => {
    worstCase ??= worstCaseCents(
      eligiblePool(ctx, deps),
      { operation, body: ctx.body, inputTokens },
      deps.model,
    );
    return worstCase;
  };
  const nowMs = deps.now?.() ?? Date.now();
  return {
    keyId: key.id,
    key: scopePlan(keyScope(key), key, estimate, cents, nowMs),
    team: team === null ? null : scopePlan(teamScope(team.id), team, estimate, cents, nowMs),
  };
}

function scopePlan(
  scope: LimitScope,
  holder: LimitHolder,
  estimate: TokenEstimate | null,
  worstCase: (inputTokens: number) => number,
  nowMs: number,
): ScopePlan {
  return {
    scope,
    requests: holder.rpmLimit === null ? null : { limit: holder.rpmLimit },
    tokens:
      holder.tpmLimit === null || estimate === null
        ? null
        : {
            limit: holder.tpmLimit,
            cost: tpmReservation(estimate, holder.tpmLimit),
            inputTokens: estimate.inputTokens,
          },
    budget:
      holder.budgetCents === null || estimate === null
        ? null
        : {
            limit: holder.budgetCents,
            cents: worstCase(estimate.inputTokens),
            period: holder.budgetPeriod,
            window: budgetWindow(holder, nowMs),
          },
  };
}

/**
 * The deployments the router may pick for this call: the model's pool, narrowed to those the
 * pre-flight stages found eligible when they ran. A fallback to another model is priced when it
 * is served; its reservation is this model's.
 */
function eligiblePool(ctx: CallContext, deps: AdmissionDeps): readonly Deployment[] {
  const pool = deps.poolOf(ctx.publicModel, ctx.endpoint.operation);
  const eligible = ctx.eligibleDeploymentIds;
  // Pre-flight hands on the pool's own id set when no check narrowed it.
  if (eligible === undefined || eligible === pool.ids) return pool.deployments;
  return pool.deployments.filter((deployment) => eligible.has(deployment.id));
}

/**
 * Refuses the call: 429 rate_limit_exceeded (RPM or TPM of the key or its team, Retry-After from
 * the window), else the refusing budget's answer (budget-refusal.ts), the key's before its
 * team's. The refused call took nothing, so the headers already set are the windows as they stand.
 */
function refuse(plan: AdmissionPlan, decision: CallAdmissionDecision): never {
  const scopes: [ScopePlan, ScopeDecision][] = [[plan.key, decision]];
  if (plan.team !== null && decision.team != null) scopes.push([plan.team, decision.team]);
  const refusedWindows = scopes
    .flatMap(([, part]) => [part.requests, part.tokens])
    .filter((window) => window?.admitted === false);
  if (refusedWindows.length > 0) {
    const retryAfterMs = Math.max(...refusedWindows.map((window) => window?.retryAfterMs ?? 0));
    const tooLarge = scopes.some(
      ([scope, part]) =>
        scope.tokens !== null &&
        scope.tokens.inputTokens > scope.tokens.limit &&
        part.tokens?.admitted === false,
    );
    throw new GatewayError('rate_limit_exceeded', {
      retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
      ...(tooLarge
        ? { message: "The request's input alone exceeds this key's (or its team's) tokens-per-minute limit." }
        : {}),
      detail: {
        keyId: plan.keyId,
        requests: decision.requests,
        tokens: decision.tokens,
        team: decision.team,
      },
    });
  }
  for (const [scope, part] of scopes) {
    const budget = part.budget;
    if (scope.budget === null || budget === null || budget.status !== 'rejected') continue;
    throw budgetRefusal(
      scope.scope,
      { limit: scope.budget.limit, worstCase: scope.budget.cents, spent: budget.spent, held: budget.held },
      scope.budget.window.resetsAtMs,
    );
  }
  throw new Error('admission refused without a refusing limit');
}
