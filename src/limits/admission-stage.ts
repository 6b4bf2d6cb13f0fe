import type { CacheStore, WindowDecision } from '../cache/cache-store.ts';
import type { Deployment } from '../deployments/deployment.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { type CallContext, estimatedInputTokensOf } from '../pipeline/call-context.ts';
import { CONTINUE, type Stage, type StageOutcome } from '../pipeline/stage.ts';
import type { Operation } from '../providers/types.ts';
import { ADMISSION_STAGE, type Admission } from './admission.ts';
import type { BudgetCounter, BudgetDecision } from './budget-counter.ts';
import type { CostModel } from './cost-model.ts';
import { LIMIT_KEYS, RATE_WINDOW_MS } from './limit-keys.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';
import { reservationCostCents } from './reservation-cost.ts';
import { estimateCallTokens, estimatedUsage, tpmReservation } from './token-reservation.ts';

export interface AdmissionDeps {
  cache: CacheStore;
  budget: BudgetCounter;
  model: CostModel;
  /** The deployments that may serve `operation` for `publicModel`: the pool the call is routed in. */
  poolOf(publicModel: string, operation: Operation): readonly Deployment[];
}

/** What one call asks of each limit its key has; null where the key has none. */
interface AdmissionPlan {
  keyId: string;
  requests: { limit: number } | null;
  tokens: { limit: number; cost: number; inputTokens: number } | null;
  budget: { limit: number; cents: number } | null;
}

interface Decisions {
  requests: WindowDecision | null;
  tokens: WindowDecision | null;
  budget: BudgetDecision | null;
}

/**
 * Admission (DESIGN.md section 4: admit RPM, TPM, budget: reserve), after the model is resolved
 * and the key's scope checked. Each limit is one atomic cache-store operation, run side by side;
 * when any refuses, what the others took is given back, so a refused call consumes nothing.
 * Every answer to a call that got here carries the key's `x-ratelimit-*` headers.
 */
export function admitLimits(deps: AdmissionDeps): Stage {
  return { name: ADMISSION_STAGE, run: (ctx) => admit(ctx, deps) };
}

async function admit(ctx: CallContext, deps: AdmissionDeps): Promise<StageOutcome> {
  const plan = planOf(ctx, deps);
  if (plan === null) return CONTINUE;
  const settled = await Promise.allSettled([
    plan.requests &&
      deps.cache.windowAdmit(LIMIT_KEYS.rpm(plan.keyId), {
        id: ctx.requestId,
        cost: 1,
        limit: plan.requests.limit,
        windowMs: RATE_WINDOW_MS,
      }),
    plan.tokens &&
      deps.cache.windowAdmit(LIMIT_KEYS.tpm(plan.keyId), {
        id: ctx.requestId,
        cost: plan.tokens.cost,
        limit: plan.tokens.limit,
        windowMs: RATE_WINDOW_MS,
      }),
    plan.budget && deps.budget.reserve(plan.keyId, plan.budget.cents, plan.budget.limit),
  ]);
  const decisions: Decisions = {
    requests: fulfilled(settled[0]),
    tokens: fulfilled(settled[1]),
    budget: fulfilled(settled[2]),
  };
  const failure = settled.find((result) => result.status === 'rejected');
  if (failure !== undefined) {
    await release(ctx, plan, decisions, deps).catch(() => {});
    throw failure.reason;
  }
  if (
    decisions.requests?.admitted === false ||
    decisions.tokens?.admitted === false ||
    decisions.budget?.admitted === false
  ) {
    await refuse(ctx, plan, decisions, deps);
  }
  Object.assign(ctx.responseHeaders, rateLimitHeaders(decisions.requests, decisions.tokens));
  const admission: Admission = {
    keyId: plan.keyId,
    reservedTokens: plan.tokens?.cost ?? null,
    reservedCents: plan.budget?.cents ?? null,
  };
  ctx.stageState.set(ADMISSION_STAGE, admission);
  return CONTINUE;
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
            cents: reservationCostCents(
              eligiblePool(ctx, deps),
              estimatedUsage(estimate, operation, ctx.body),
              deps,
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

/** Gives back what a refused or failed call took; refused windows took nothing. */
async function release(
  ctx: CallContext,
  plan: AdmissionPlan,
  decisions: Decisions,
  deps: AdmissionDeps,
): Promise<void> {
  const work: Promise<void>[] = [];
  if (decisions.requests?.admitted === true)
    work.push(deps.cache.windowAdjust(LIMIT_KEYS.rpm(plan.keyId), ctx.requestId, 0, RATE_WINDOW_MS));
  if (decisions.tokens?.admitted === true)
    work.push(deps.cache.windowAdjust(LIMIT_KEYS.tpm(plan.keyId), ctx.requestId, 0, RATE_WINDOW_MS));
  if (decisions.budget?.admitted === true && plan.budget !== null)
    work.push(deps.budget.adjust(plan.keyId, -plan.budget.cents));
  await Promise.all(work);
}

/**
 * Refuses the call: 429 rate_limit_exceeded (RPM or TPM, Retry-After from the window) or
 * budget_exceeded (DESIGN.md section 5), with the headers of the windows as they stand once
 * this call's entries are given back.
 */
async function refuse(
  ctx: CallContext,
  plan: AdmissionPlan,
  decisions: Decisions,
  deps: AdmissionDeps,
): Promise<never> {
  await release(ctx, plan, decisions, deps);
  const [requests, tokens] = await Promise.all([
    decisions.requests?.admitted === true && plan.requests !== null
      ? deps.cache.windowState(LIMIT_KEYS.rpm(plan.keyId), plan.requests.limit, RATE_WINDOW_MS)
      : decisions.requests,
    decisions.tokens?.admitted === true && plan.tokens !== null
      ? deps.cache.windowState(LIMIT_KEYS.tpm(plan.keyId), plan.tokens.limit, RATE_WINDOW_MS)
      : decisions.tokens,
  ]);
  Object.assign(ctx.responseHeaders, rateLimitHeaders(requests, tokens));
  const refusedWindows = [decisions.requests, decisions.tokens].filter(
    (window) => window?.admitted === false,
  );
  if (refusedWindows.length > 0) {
    const retryAfterMs = Math.max(...refusedWindows.map((window) => window?.retryAfterMs ?? 0));
    const tooLarge = plan.tokens !== null && plan.tokens.inputTokens > plan.tokens.limit;
    throw new GatewayError('rate_limit_exceeded', {
      retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
      ...(tooLarge && decisions.tokens?.admitted === false
        ? { message: "The request's input alone exceeds this key's tokens-per-minute limit." }
        : {}),
      detail: { keyId: plan.keyId, requests: decisions.requests, tokens: decisions.tokens },
    });
  }
  throw new GatewayError('budget_exceeded', {
    detail: { keyId: plan.keyId, reservedCents: plan.budget?.cents, usedCents: decisions.budget?.usedCents },
  });
}

function fulfilled<T>(result: PromiseSettledResult<T | null>): T | null {
  return result.status === 'fulfilled' ? result.value : null;
}
