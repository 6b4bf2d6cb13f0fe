import type { CacheStore, ScopeSettlement, TokenEntry } from '../cache/cache-store.ts';
import { DIAGNOSTICS } from '../diagnostics/diagnostics-channels.ts';
import type { ThresholdWatch } from './budget-thresholds.ts';
import { exactCents } from './exact-cents.ts';
import { LIMIT_KEYS, RATE_WINDOW_MS } from './limit-keys.ts';

/** The cache-store keys one scope (a key, or its team) of a call settles into. */
export interface ScopeTarget {
  tpm: string;
  /** The spend counter of the budget window the call was admitted in. */
  budget: string;
  held: string;
  /** The budget to check for thresholds once the batch settled; absent without a budget. */
  watch?: ThresholdWatch;
}

/** Where a call settles: its key's limits and its team's, one `{hash-tag}`. */
export interface SettlementTarget {
  key: ScopeTarget;
  team: ScopeTarget | null;
}

/** What one finished call changes in one scope's limits. */
export interface ScopeCallSettlement {
  /** The token entry's new cost (0 releases it); null leaves the entry as reserved. */
  tokens: number | null;
  /** Null when the scope has no budget; else the reservation `requestId` is released and `costCents` spent. */
  budget: { costCents: number } | null;
}

/** What one finished call changes in its key's limits and, in `team`, its team's. */
export interface CallSettlement extends ScopeCallSettlement {
  requestId: string;
  team?: ScopeCallSettlement | null;
}

export interface SettlementBatcherOptions {
  cache: Pick<CacheStore, 'settleCalls'>;
  /** The budget reservations' lease (ReservationLeases.leaseMs). */
  leaseMs: number;
  /** A waiting batch is sent at once, beside the one in flight, when it holds this many calls. */
  maxCalls?: number;
  /** A batch was settled; called after the store answered. Must not throw. */
  onSettled?(target: SettlementTarget): void;
}

/** Keeps one script's argument list (two per call) well within what Redis takes in one go. */
const DEFAULT_MAX_CALLS = 256;

interface ScopeBatch {
  entries: TokenEntry[];
  /** The summed costs of the calls with a budget; null while no call of the batch has one. */
  costCents: number | null;
  /** The budget reservations to release, each with its call's cost. */
  settled: TokenEntry[];
}

/** Settlements of one budget counter not yet sent to the cache store. */
export interface UnsentSettlements {
  costCents: number;
  /** Each call's reservation id and cost. */
  calls: TokenEntry[];
}

interface Batch {
  key: ScopeBatch;
  team: ScopeBatch;
  requestIds: string[];
}

interface TargetState {
  target: SettlementTarget;
  waiting: Batch | null;
  inFlight: number;
}

/** A key id without a team settles into its own keys, in the lifetime budget window. */
function targetOf(target: SettlementTarget | string): SettlementTarget {
  if (typeof target !== 'string') return target;
  return {
    key: {
      tpm: LIMIT_KEYS.tpm(target),
      budget: LIMIT_KEYS.budget(target),
      held: LIMIT_KEYS.budgetHeld(target),
    },
    team: null,
  };
}

function emptyScope(): ScopeBatch {
  return { entries: [], costCents: null, settled: [] };
}

function addTo(batch: ScopeBatch, requestId: string, call: ScopeCallSettlement): void {
  if (call.tokens !== null) batch.entries.push({ id: requestId, cost: call.tokens });
  if (call.budget !== null) {
    batch.costCents = exactCents((batch.costCents ?? 0) + call.budget.costCents);
    batch.settled.push({ id: requestId, cost: call.budget.costCents });
  }
}

/**
 * Settles finished calls by target (a key's limit keys and its team's), one cache-store operation
 * (`settleCalls`) in flight per target: a call whose target has none in flight is sent at once,
 * so a client calling one call after another has each settled before its next admission (the
 * store runs one connection's commands in order); calls that finish while one is in flight wait
 * for it and then go together. So a busy key costs one settlement per round trip instead of one
 * per call, and nothing waits on a timer. The token entries keep their own costs; the budget
 * costs are summed and the reservations released in the same step. A new budget period is a new
 * target, since its spend goes to another counter. A batch that could not be settled (the cache
 * store failed; the calls are not affected) is published (`switchyard:limits:settle-error`).
 */
export class SettlementBatcher {
  readonly #cache: Pick<CacheStore, 'settleCalls'>;
  readonly #leaseMs: number;
  readonly #maxCalls: number;
  readonly #onSettled: SettlementBatcherOptions['onSettled'];
  readonly #targets = new Map<string, TargetState>();
  readonly #inFlight = new Set<Promise<void>>();

  constructor(options: SettlementBatcherOptions) {
    this.#cache = options.cache;
    this.#leaseMs = options.leaseMs;
    this.#maxCalls = options.maxCalls ?? DEFAULT_MAX_CALLS;
    this.#onSettled = options.onSettled;
  }

  /** `target`: where the call settles; a key id stands for a key without a team or budget period. */
  add(target: SettlementTarget | string, call: CallSettlement): void {
    const resolved = targetOf(target);
    const id = `${resolved.key.budget} ${resolved.team?.budget ?? ''}`;
    let state = this.#targets.get(id);
    if (state === undefined) {
      state = { target: resolved, waiting: null, inFlight: 0 };
      this.#targets.set(id, state);
    }
    state.waiting ??= { key: emptyScope(), team: emptyScope(), requestIds: [] };
    const batch = state.waiting;
    addTo(batch.key, call.requestId, call);
    if (call.team != null) addTo(batch.team, call.requestId, call.team);
    batch.requestIds.push(call.requestId);
    if (state.inFlight === 0 || batch.requestIds.length >= this.#maxCalls) this.#send(id, state);
  }

  /**
   * The settlements of budget counter `counterKey` still waiting to be sent. A budget rebuilt now
   * leaves their cost out of the counter and holds their reservations, as their settlement,
   * sent after the rebuild on the same connection, adds the one and releases the other.
   */
  unsent(counterKey: string): UnsentSettlements {
    const unsent: UnsentSettlements = { costCents: 0, calls: [] };
    for (const { target, waiting } of this.#targets.values()) {
      if (waiting === null) continue;
      const batch =
        target.key.budget === counterKey
          ? waiting.key
          : target.team?.budget === counterKey
            ? waiting.team
            : null;
      if (batch === null || batch.costCents === null) continue;
      unsent.costCents = exactCents(unsent.costCents + batch.costCents);
      unsent.calls.push(...batch.settled);
    }
    return unsent;
  }

  /** Resolves when every settlement added so far has been settled or has failed. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  #scope(target: ScopeTarget, batch: ScopeBatch): ScopeSettlement {
    return {
      tokens: batch.entries.length === 0 ? null : { key: target.tpm, entries: batch.entries },
      budget:
        batch.costCents === null
          ? null
          : {
              key: target.budget,
              heldKey: target.held,
              costCents: batch.costCents,
              release: batch.settled.map((call) => call.id),
              leaseMs: this.#leaseMs,
            },
    };
  }

  #send(id: string, state: TargetState): void {
    const batch = state.waiting;
    if (batch === null) return;
    state.waiting = null;
    state.inFlight++;
    const { target } = state;
    const work = this.#cache
      .settleCalls({
        windowMs: RATE_WINDOW_MS,
        ...this.#scope(target.key, batch.key),
        ...(target.team === null ? {} : { team: this.#scope(target.team, batch.team) }),
      })
      .then(
        () => this.#onSettled?.(target),
        (error: unknown) => {
          const channel = DIAGNOSTICS.settleError;
          if (channel.hasSubscribers) channel.publish({ error, requestIds: batch.requestIds });
        },
      )
      .finally(() => {
        state.inFlight--;
        // The batch that waited is sent (and tracked) before this one stops being tracked, so
        // idle() never sees a gap.
        if (state.inFlight === 0) {
          this.#send(id, state);
          if (state.inFlight === 0) this.#targets.delete(id);
        }
        this.#inFlight.delete(work);
      });
    this.#inFlight.add(work);
  }
}
