import type { CacheStore } from '../cache/cache-store.ts';
import { type BudgetThresholdEvent, DIAGNOSTICS } from '../diagnostics/diagnostics-channels.ts';
import type { BudgetPeriod } from './budget-period.ts';
import type { LimitScope } from './limit-keys.ts';

/** Where a budget crossing 80% and 100% of its period is published (issue 24, Alerts). */
export const BUDGET_THRESHOLD_CHANNEL = DIAGNOSTICS.budgetThreshold.name;
export type { BudgetThresholdEvent };

/** The budget a settled batch counted against: what a threshold check needs. */
export interface ThresholdWatch {
  scope: LimitScope;
  budgetCents: number;
  period: BudgetPeriod | null;
  periodStartMs: number | null;
  /** The window's spend counter in the cache store. */
  counterKey: string;
  /** When the window ends (null: a lifetime budget), so a marker outlives it and no longer. */
  resetsAtMs: number | null;
}

const PERCENTS = [80, 100] as const;
const DAY_MS = 86_400_000;

export interface BudgetThresholdsOptions {
  cache: Pick<CacheStore, 'get' | 'setIfAbsent'>;
  /** A check failed (the cache store); the next settlement checks again. Must not throw. */
  onError(error: unknown, watch: ThresholdWatch): void;
  now?(): number;
}

/**
 * Publishes each budget window's crossing of 80% and 100% once, across replicas: after a batch
 * settled (never on the hot path), the window's counter is read and, for each threshold passed, a
 * marker is set with SET NX in the cache store; only the replica that set it publishes.
 */
export class BudgetThresholds {
  readonly #options: BudgetThresholdsOptions;
  readonly #channel = DIAGNOSTICS.budgetThreshold;
  /**
   * Counters being checked, and whether a settlement came meanwhile: a burst of settlements of
   * one budget reads it once at a time, and once more after, so the last crossing is not missed.
   */
  readonly #checking = new Map<string, { again: boolean }>();

  constructor(options: BudgetThresholdsOptions) {
    this.#options = options;
  }

  check(watch: ThresholdWatch): void {
    if (!this.#channel.hasSubscribers) return;
    const running = this.#checking.get(watch.counterKey);
    if (running !== undefined) {
      running.again = true;
      return;
    }
    const state = { again: false };
    this.#checking.set(watch.counterKey, state);
    this.#checkOnce(watch)
      .catch((error: unknown) => this.#options.onError(error, watch))
      .finally(() => {
        this.#checking.delete(watch.counterKey);
        if (state.again) this.check(watch);
      });
  }

  async #checkOnce(watch: ThresholdWatch): Promise<void> {
    const counter = await this.#options.cache.get(watch.counterKey);
    if (counter === null || watch.budgetCents <= 0) return;
    const spendCents = Number(counter);
    const nowMs = this.#options.now?.() ?? Date.now();
    // A marker lives a day past its window's end; a lifetime budget's for good.
    const ttlMs = watch.resetsAtMs === null ? 0 : Math.max(1, watch.resetsAtMs - nowMs) + DAY_MS;
    const window = watch.periodStartMs ?? 'lifetime';
    for (const percent of PERCENTS) {
      if (spendCents < (watch.budgetCents * percent) / 100) break;
      const marker = `alert:{${watch.scope.hashTag}}:${watch.scope.id}:${window}:${percent}`;
      if (!(await this.#options.cache.setIfAbsent(marker, '1', ttlMs))) continue;
      const event: BudgetThresholdEvent = {
        scope: watch.scope.kind,
        id: watch.scope.id,
        percent,
        period: watch.period ?? 'lifetime',
        periodStart: new Date(watch.periodStartMs ?? 0).toISOString(),
        spendCents,
        budgetCents: watch.budgetCents,
      };
      this.#channel.publish(event);
    }
  }
}
