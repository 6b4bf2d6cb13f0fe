import {
  type CacheStore,
  CacheUnavailableError,
  type CallAdmissionDecision,
  type CallAdmissionRequest,
} from '../cache/cache-store.ts';
import type { Deployment } from '../deployments/deployment.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { type CallContext, estimatedInputTokensOf } from '../pipeline/call-context.ts';
import { CONTINUE, type Stage, type StageOutcome } from '../pipeline/stage.ts';
import type { Operation } from '../providers/types.ts';
import { ADMISSION_STAGE, type Admission } from './admission.ts';
import type { BudgetCounter } from './budget-counter.ts';
import { budgetRefusal } from './budget-refusal.ts';
import { type CostModel, worstCaseCents } from './cost.ts';
import { LIMIT_KEYS, RATE_WINDOW_MS } from './limit-keys.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';
import type { ReservationLeases } from './reservation-leases.ts';
import { estimateCallTokens, tpmReservation } from './token-reservation.ts';

export interface AdmissionDeps {
  cache: CacheStore;
  budget: BudgetCounter;
  model: CostModel;
  leases: ReservationLeases;
  /** The deployments that may serve `operation` for `publicModel`: the pool the call is routed in. */
  poolOf(publicModel: string, operation: Operation): readonly Deployment[];
}

/** What one call asks of each limit its key has; null where the key has none. */
interface AdmissionPlan {
  keyId: string;
  requests: { limit: number } | null;
  tokens: { limit: number; cost: number; inputTokens: number } | null;
  /** `cents`: the call's worst-case cost, reserved whole. */
  budget: { limit: number; cents: number } | null;
}

/**
 * Admission (DESIGN.md section 4: admit RPM, TPM, budget: reserve), after the model is resolved
 * and the key's scope checked. Every limit of the key is decided in one atomic cache-store
 * operation (one round trip): either all admit and each takes its share, or the call is refused
 * and takes nothing. Every answer to a call that got here carries the key's `x-ratelimit-*` headers.
 */
export function admitLimits(deps: AdmissionDeps): Stage {
  return { name: ADMISSION_STAGE, run: (ctx) => admit(ctx, deps) };
}

async function admit(ctx: CallContext, deps: AdmissionDeps): Promise<StageOutcome> {
  const plan = planOf(ctx, deps);
  if (plan === null) return CONTINUE;
  const request = admissionRequest(ctx, plan, deps.leases.leaseMs);
  let decision = await deps.cache.admitCall(request);
  if (decision.budget?.status === 'missing') {
    await deps.budget.seed(plan.keyId);
    decision = await deps.cache.admitCall(request);
    if (decision.budget?.status === 'missing') {
      throw new CacheUnavailableError('the budget counter vanished while it was being seeded');
    }
  }
  Object.assign(ctx.responseHeaders, rateLimitHeaders(decision.requests, decision.tokens));
  if (!decision.admitted) refuse(plan, decision);
  if (plan.budget !== null) deps.leases.hold(plan.keyId, ctx.requestId);
  const admission: Admission = {
    keyId: plan.keyId,
    reservedTokens: plan.tokens?.cost ?? null,
    reservedCents: plan.budget?.cents ?? null,
  };
  ctx.stageState.set(ADMISSION_STAGE, admission);
  return CONTINUE;
}

function admissionRequest(ctx: CallContext, plan: AdmissionPlan, leaseMs: number): CallAdmissionRequest {
  const { keyId, requests, tokens, budget } = plan;
  return {
    id: ctx.requestId,
    windowMs: RATE_WINDOW_MS,
    requests: requests && { key: LIMIT_KEYS.rpm(keyId), limit: requests.limit },
    tokens: tokens && { key: LIMIT_KEYS.tpm(keyId), limit: tokens.limit, cost: tokens.cost },
    budget: budget && {
      key: LIMIT_KEYS.budget(keyId),
      heldKey: LIMIT_KEYS.budgetHeld(keyId),
      limit: budget.limit,
      amount: budget.cents,
      leaseMs,
    },
  };
}

function planOf(ctx: CallContext, deps: AdmissionDeps): AdmissionPlan | null {
  if (ctx.principal.kind !== 'virtual') return null;
  const key = ctx.principal.key;
  if (key.rpmLimit === null && key.tpmLimit === null && key.budgetCents === null) return null;
  const operation = ctx.endpoint.operation;
  const estimate =
    key.tpmLimit === null && key.budgetCents === null
      ? null
      : estimateCallTokens(
          deps.model,
          operation,
          ctx.body,
          estimatedInputTokensOf(ctx, (op, body) => deps.model.estimateInputTokens(op, body)),
        );
  return {
    keyId: key.id,
    requests: key.rpmLimit === null ? null : { limit: key.rpmLimit },
    tokens:
      key.tpmLimit === null || estimate === null
        ? null
        : {
            limit: key.tpmLimit,
            cost: tpmReservation(estimate, key.tpmLimit),
            inputTokens: estimate.inputTokens,
          },
    budget:
      key.budgetCents === null || estimate === null
        ? null
        : {
            limit: key.budgetCents,
            cents: worstCaseCents(
              eligiblePool(ctx, deps),
              { operation, body: ctx.body, inputTokens: estimate.inputTokens },
              deps.model,
            ),
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
  return eligible === undefined ? pool : pool.filter((deployment) => eligible.has(deployment.id));
}

/**
 * Refuses the call: 429 rate_limit_exceeded (RPM or TPM, Retry-After from the window), else the
 * budget's refusal (budget-refusal.ts). The refused call took nothing, so the headers already set
 * are the windows as they stand.
 */
function refuse(plan: AdmissionPlan, decision: CallAdmissionDecision): never {
  const refusedWindows = [decision.requests, decision.tokens].filter((window) => window?.admitted === false);
  if (refusedWindows.length > 0) {
    const retryAfterMs = Math.max(...refusedWindows.map((window) => window?.retryAfterMs ?? 0));
    const tooLarge = plan.tokens !== null && plan.tokens.inputTokens > plan.tokens.limit;
    throw new GatewayError('rate_limit_exceeded', {
      retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
      ...(tooLarge && decision.tokens?.admitted === false
        ? { message: "The request's input alone exceeds this key's tokens-per-minute limit." }
        : {}),
      detail: { keyId: plan.keyId, requests: decision.requests, tokens: decision.tokens },
    });
  }
  const budget = decision.budget;
  if (plan.budget === null || budget === null || budget.status === 'missing') {
    throw new Error('admission refused without a refusing limit');
  }
  throw budgetRefusal(plan.keyId, { limit: plan.budget.limit, worstCase: plan.budget.cents, ...budget });
}
