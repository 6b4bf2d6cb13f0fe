import type { CacheStore } from '../cache/cache-store.ts';
import { DIAGNOSTICS } from '../telemetry/diagnostics-channels.ts';
import { LIMIT_KEYS } from './limit-keys.ts';

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
 * One renewal per key with calls in flight per tick, whatever their number. A failed renewal (the
 * cache store is down; the reservations may lapse) is published (`switchyard:limits:lease-renew-error`).
 */
export class ReservationLeases {
  readonly leaseMs: number;
  readonly #options: ReservationLeasesOptions;
  /** Key id -> request ids of its calls in flight. */
  readonly #held = new Map<string, Set<string>>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: ReservationLeasesOptions) {
    this.#options = options;
    this.leaseMs = options.leaseMs ?? RESERVATION_LEASE_MS;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.renew(), this.leaseMs / 3).unref();
  }

  hold(keyId: string, requestId: string): void {
    let ids = this.#held.get(keyId);
    if (ids === undefined) {
      ids = new Set();
      this.#held.set(keyId, ids);
    }
    ids.add(requestId);
  }

  release(keyId: string, requestId: string): void {
    const ids = this.#held.get(keyId);
    if (ids === undefined) return;
    ids.delete(requestId);
    if (ids.size === 0) this.#held.delete(keyId);
  }

  /** Renews every reservation held now (the timer's work; public for tests). */
  async renew(): Promise<void> {
    const renewals = [...this.#held].map(([keyId, ids]) =>
      this.#options.cache
        .renewReservations({ heldKey: LIMIT_KEYS.budgetHeld(keyId), ids: [...ids], leaseMs: this.leaseMs })
        .catch((error: unknown) => {
          const channel = DIAGNOSTICS.leaseRenewError;
          if (channel.hasSubscribers) channel.publish({ error, keyId });
        }),
    );
    await Promise.all(renewals);
  }

  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
