import type { CacheStore, TokenEntry } from '../cache/cache-store.ts';
import { DIAGNOSTICS } from '../diagnostics/diagnostics-channels.ts';
import { LIMIT_KEYS, type ScopeRef, scopeOf } from './limit-keys.ts';

/**
 * How long a budget reservation holds in the cache store without renewal. A process that dies
 * mid-call (SIGKILL, OOM) never settles its calls: their reservations leave the store within this
 * long (docs/operations.md, Failure modes). Live calls renew theirs every third of it.
 */
export const RESERVATION_LEASE_MS = 30_000;

export interface ReservationLeasesOptions {
  cache: Pick<CacheStore, 'renewReservations'>;
  leaseMs?: number;
}

/**
 * The budget reservations of this process's calls in flight, renewed together on one timer: a
 * call longer than a lease keeps its reservation, and a call costs one map entry, not a timer.
 * One renewal per budget (a key's, a team's) with calls in flight per tick, whatever their number.
 * Each reservation's cents are kept too: a renewal takes again one the store lost (FLUSHDB, a
 * failover to an empty replica), and a budget rebuilt in this process starts with them.
 * A failed renewal (the cache store is down; the reservations may lapse) is published
 * (`switchyard:limits:lease-renew-error`).
 */
export class ReservationLeases {
  readonly leaseMs: number;
  readonly #options: ReservationLeasesOptions;
  /** Reservation log key -> the scope's id and the request ids of its calls in flight, with their cents. */
  readonly #held = new Map<string, { scopeId: string; ids: Map<string, number> }>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: ReservationLeasesOptions) {
    this.#options = options;
    this.leaseMs = options.leaseMs ?? RESERVATION_LEASE_MS;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.renew(), this.leaseMs / 3).unref();
  }

  /** The call `requestId` holds `cents` of the scope's budget until it is released. */
  hold(scope: ScopeRef, requestId: string, cents: number): void {
    const heldKey = LIMIT_KEYS.budgetHeld(scope);
    let held = this.#held.get(heldKey);
    if (held === undefined) {
      held = { scopeId: scopeOf(scope).id, ids: new Map() };
      this.#held.set(heldKey, held);
    }
    held.ids.set(requestId, cents);
  }

  /** The reservations this process's calls in flight hold of the scope's budget. */
  reservationsOf(scope: ScopeRef): TokenEntry[] {
    return entriesOf(this.#held.get(LIMIT_KEYS.budgetHeld(scope))?.ids);
  }

  release(scope: ScopeRef, requestId: string): void {
    const heldKey = LIMIT_KEYS.budgetHeld(scope);
    const held = this.#held.get(heldKey);
    if (held === undefined) return;
    held.ids.delete(requestId);
    if (held.ids.size === 0) this.#held.delete(heldKey);
  }

  /** Renews every reservation held now (the timer's work; public for tests). */
  async renew(): Promise<void> {
    await Promise.all([...this.#held.keys()].map((heldKey) => this.renewHeld(heldKey)));
  }

  /**
   * Renews the reservations held in one log now, taking again those the store lost: what a
   * replica does when another announces it rebuilt that budget (CHANNELS.budgetRebuilt), so its
   * calls in flight count again at once rather than at the next tick.
   */
  async renewHeld(heldKey: string): Promise<void> {
    const held = this.#held.get(heldKey);
    if (held === undefined) return;
    await this.#options.cache
      .renewReservations({ heldKey, reservations: entriesOf(held.ids), leaseMs: this.leaseMs })
      .catch((error: unknown) => {
        const channel = DIAGNOSTICS.leaseRenewError;
        if (channel.hasSubscribers) channel.publish({ error, keyId: held.scopeId });
      });
  }

  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

function entriesOf(ids: ReadonlyMap<string, number> | undefined): TokenEntry[] {
  return ids === undefined ? [] : Array.from(ids, ([id, cost]) => ({ id, cost }));
}
