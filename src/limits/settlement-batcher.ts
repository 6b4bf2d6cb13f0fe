import type { CacheStore, TokenEntry } from '../cache/cache-store.ts';
import { DIAGNOSTICS } from '../telemetry/diagnostics-channels.ts';
import { exactCents } from './exact-cents.ts';
import { LIMIT_KEYS, RATE_WINDOW_MS } from './limit-keys.ts';

/** What one finished call changes in its key's limits. */
export interface CallSettlement {
  requestId: string;
  /** The token entry's new cost (0 releases it); null leaves the entry as reserved. */
  tokens: number | null;
  /** Null when the key has no budget; else the reservation `requestId` is released and `costCents` spent. */
  budget: { costCents: number } | null;
}

export interface SettlementBatcherOptions {
  cache: Pick<CacheStore, 'settleCalls'>;
  /** The budget reservations' lease (ReservationLeases.leaseMs). */
  leaseMs: number;
  /** A waiting batch is sent at once, beside the one in flight, when it holds this many calls. */
  maxCalls?: number;
}

/** Keeps one script's argument list (two per call) well within what Redis takes in one go. */
const DEFAULT_MAX_CALLS = 256;

interface Batch {
  entries: TokenEntry[];
  /** The summed costs of the calls with a budget; null while no call of the batch has one. */
  costCents: number | null;
  /** The budget reservations to release. */
  release: string[];
  requestIds: string[];
}

interface KeyState {
  waiting: Batch | null;
  inFlight: number;
}

/**
 * Settles finished calls by virtual key, one cache-store operation (`settleCalls`) in flight per
 * key: a call whose key has none in flight is sent at once, so a client calling one call after
 * another has each settled before its next admission (the store runs one connection's commands
 * in order); calls that finish while one is in flight wait for it and then go together. So a
 * busy key costs one settlement per round trip instead of one per call, and nothing waits on a
 * timer. The token entries keep their own costs; the budget costs are summed and the
 * reservations released in the same step. A batch that could not be settled (the cache store
 * failed; the calls are not affected) is published (`switchyard:limits:settle-error`).
 */
export class SettlementBatcher {
  readonly #cache: Pick<CacheStore, 'settleCalls'>;
  readonly #leaseMs: number;
  readonly #maxCalls: number;
  readonly #keys = new Map<string, KeyState>();
  readonly #inFlight = new Set<Promise<void>>();

  constructor(options: SettlementBatcherOptions) {
    this.#cache = options.cache;
    this.#leaseMs = options.leaseMs;
    this.#maxCalls = options.maxCalls ?? DEFAULT_MAX_CALLS;
  }

  add(keyId: string, call: CallSettlement): void {
    let state = this.#keys.get(keyId);
    if (state === undefined) {
      state = { waiting: null, inFlight: 0 };
      this.#keys.set(keyId, state);
    }
    state.waiting ??= { entries: [], costCents: null, release: [], requestIds: [] };
    const batch = state.waiting;
    if (call.tokens !== null) batch.entries.push({ id: call.requestId, cost: call.tokens });
    if (call.budget !== null) {
      batch.costCents = exactCents((batch.costCents ?? 0) + call.budget.costCents);
      batch.release.push(call.requestId);
    }
    batch.requestIds.push(call.requestId);
    if (state.inFlight === 0 || batch.requestIds.length >= this.#maxCalls) this.#send(keyId, state);
  }

  /** Resolves when every settlement added so far has been settled or has failed. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  #send(keyId: string, state: KeyState): void {
    const batch = state.waiting;
    if (batch === null) return;
    state.waiting = null;
    state.inFlight++;
    const work = this.#cache
      .settleCalls({
        windowMs: RATE_WINDOW_MS,
        tokens: batch.entries.length === 0 ? null : { key: LIMIT_KEYS.tpm(keyId), entries: batch.entries },
        budget:
          batch.costCents === null
            ? null
            : {
                key: LIMIT_KEYS.budget(keyId),
                heldKey: LIMIT_KEYS.budgetHeld(keyId),
                costCents: batch.costCents,
                release: batch.release,
                leaseMs: this.#leaseMs,
              },
      })
      .catch((error: unknown) => {
        const channel = DIAGNOSTICS.settleError;
        if (channel.hasSubscribers) channel.publish({ error, requestIds: batch.requestIds });
      })
      .finally(() => {
        state.inFlight--;
        // The batch that waited is sent (and tracked) before this one stops being tracked, so
        // idle() never sees a gap.
        if (state.inFlight === 0) {
          this.#send(keyId, state);
          if (state.inFlight === 0) this.#keys.delete(keyId);
        }
        this.#inFlight.delete(work);
      });
    this.#inFlight.add(work);
  }
}
