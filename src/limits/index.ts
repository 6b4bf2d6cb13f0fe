import type { CacheStore } from '../cache/cache-store.ts';
import { CHANNELS } from '../cache/channels.ts';
import type { DeploymentDirectory } from '../deployments/deployment-directory.ts';
import { DIAGNOSTICS } from '../diagnostics/diagnostics-channels.ts';
import type { FeatureModule } from '../pipeline/feature-module.ts';
import type { CallObserver } from '../pipeline/pipeline.ts';
import type { Stage } from '../pipeline/stage.ts';
import { type Db, withTimeout } from '../store/database.ts';
import { admitLimits } from './admission-stage.ts';
import { meterUsage } from './billed-usage.ts';
import { BudgetCounter } from './budget-counter.ts';
import { BudgetThresholds } from './budget-thresholds.ts';
import { type CostModel, catalogCostModel } from './cost.ts';
import type { LimitScope } from './limit-keys.ts';
import { ReservationLeases } from './reservation-leases.ts';
import { SettleObserver } from './settle-observer.ts';
import { readWindowSpendCents, type SpendTable, spendFlushFor } from './spend-statement.ts';
import { SpendNotWrittenError, SpendWriter } from './spend-writer.ts';

export { BUDGET_THRESHOLD_CHANNEL, type BudgetThresholdEvent } from './budget-thresholds.ts';
export type { CostModel } from './cost.ts';
export { OUTPUT_RESERVATION_FLOOR_TOKENS } from './token-reservation.ts';

export interface LimitsDeps {
  cache: CacheStore;
  /**
   * Budget re-seeds and spend batches. A batch is applied once under its id (spend-writer.ts), so
   * its statement is bounded as tightly as the request path's: spend held through a Postgres stall
   * lands within about a second of its end, not after a 30 s statement bound (issue 30 finding 10).
   */
  db: Db;
  /** The deployments by public model: the pools whose highest price a budget reservation uses. */
  directory: Pick<DeploymentDirectory, 'poolOf'>;
  /** Bound on the budget re-seed's database read (the dependency timeout). */
  dependencyTimeoutMs: number;
  /** Defaults to the model catalog. */
  model?: CostModel;
  spendFlushIntervalMs?: number;
  /** The clock budget periods are read on (ms since the epoch); Date.now by default. */
  now?(): number;
}

export interface Limits {
  /** Admission: after model resolution and the scope check. */
  stage: Stage;
  /** Settlement: the first call observer, before the record. */
  observer: CallObserver;
  /** Spend not yet in the database, by key (for the budget re-seed and tests). */
  spend: SpendWriter;
  /** The same for teams. */
  teamSpend: SpendWriter;
  /** A key's or team's spend in a budget window not yet in the database (null: all of it). */
  pendingSpendCents(scope: LimitScope, periodStartMs: number | null): number;
  /**
   * The shutdown 'flush' step: lets settlements finish, then writes the pending spend, trying for
   * at most `timeoutMs`; spend not written by then is published key by key
   * (`switchyard:limits:spend-not-written`).
   */
  close(timeoutMs?: number): Promise<void>;
  /** Admission at its place, settlement as the first observer, the spend flush at shutdown. */
  module: FeatureModule;
}

/** Builds limits, budgets and cost accounting (issue 6) from the runtime's dependencies. */
export function createLimits(deps: LimitsDeps): Limits {
  const { cache, db, directory } = deps;
  const model = deps.model ?? catalogCostModel;
  const writer = (table: SpendTable) =>
    new SpendWriter({
      flush: spendFlushFor(db, table),
      intervalMs: deps.spendFlushIntervalMs,
    });
  const spend = writer('virtual_keys');
  const teamSpend = writer('teams');
  const pendingSpendCents = (scope: LimitScope, periodStartMs: number | null) =>
    (scope.kind === 'team' ? teamSpend : spend).pendingFor(scope.id, periodStartMs);
  const leases = new ReservationLeases({ cache });
  const thresholds = new BudgetThresholds({
    cache,
    now: deps.now,
    // A check that failed is retried by the next settlement of the same budget.
    onError: (error) => {
      const channel = DIAGNOSTICS.settleError;
      if (channel.hasSubscribers) channel.publish({ error, requestIds: [] });
    },
  });
  const observer = new SettleObserver({
    cache,
    model,
    spend,
    teamSpend,
    leases,
    now: deps.now,
    onSettled: (target) => {
      if (target.key.watch !== undefined) thresholds.check(target.key.watch);
      if (target.team?.watch !== undefined) thresholds.check(target.team.watch);
    },
  });
  const budget = new BudgetCounter({
    cache,
    readSpendCents: (scope, periodStartMs) =>
      withTimeout(readWindowSpendCents(db, scope, periodStartMs), deps.dependencyTimeoutMs, 'database'),
    pendingSpendCents,
    spendEpoch: (scope) => (scope.kind === 'team' ? teamSpend : spend).epoch,
    inFlight: (scope, counterKey) => ({
      reservations: leases.reservationsOf(scope),
      unsent: observer.unsent(counterKey),
    }),
    leaseMs: leases.leaseMs,
    // A lost announcement costs only time: the renewal timer takes the reservations again too.
    onRebuilt: (heldKey) => void cache.publish(CHANNELS.budgetRebuilt, heldKey).catch(() => undefined),
  });
  const rebuilt = cache
    .subscribe(CHANNELS.budgetRebuilt, (heldKey) => void leases.renewHeld(heldKey))
    .catch(() => async () => undefined);
  spend.start();
  teamSpend.start();
  leases.start();
  const closeWriter = async (writer: SpendWriter, timeoutMs?: number) => {
    try {
      await writer.close({ timeoutMs });
    } catch (error) {
      if (!(error instanceof SpendNotWrittenError)) throw error;
      // The operator's record of what to add to spend_cents by hand.
      const channel = DIAGNOSTICS.spendNotWritten;
      if (channel.hasSubscribers) channel.publish({ deltas: error.deltas });
    }
  };
  const stage = admitLimits({
    cache,
    budget,
    model,
    leases,
    now: deps.now,
    poolOf: (publicModel, operation) => directory.poolOf(publicModel, operation),
  });
  const close = async (timeoutMs?: number) => {
    await observer.idle();
    await (await rebuilt)().catch(() => undefined);
    leases.close();
    await Promise.all([closeWriter(spend, timeoutMs), closeWriter(teamSpend, timeoutMs)]);
  };
  return {
    stage,
    observer,
    spend,
    teamSpend,
    pendingSpendCents,
    close,
    module: {
      name: 'limits',
      call: { admission: stage },
      answer: { meter: meterUsage },
      observers: [observer],
      shutdown: [{ phase: 'flush', name: 'limits and spend', run: close }],
    },
  };
}
