/**
 * The shared cache store (SPEC.md: "holds only ephemeral runtime state"). One interface, two
 * implementations: Redis for replicas, in-process memory for the embedded default. Every
 * operation that decides admission is atomic in both (a Lua script in Redis).
 *
 * Keys passed in are logical names such as `rl:{key_123}:rpm`; an implementation may prefix
 * them (Redis: the configured prefix) but never reshapes the `{hash-tag}` part, so every key of one
 * virtual key lands in one Redis Cluster slot.
 */
export interface CacheStore {
  readonly kind: 'redis' | 'memory';

  /** Atomically adds `by` (may be negative) and returns the new value; sets `ttlMs` when the key is created. */
  incrBy(key: string, by: number, ttlMs: number): Promise<number>;

  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Sets only when absent; true when it set. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  del(key: string): Promise<void>;
  /** Remaining time to live in ms; null when the key does not exist or has no expiry. */
  ttlMs(key: string): Promise<number | null>;

  /**
   * Sliding-window admission (a sliding log: exact at the boundary). Admits `cost` units under
   * reservation `id` when the sum of the entries of the last `windowMs` plus `cost` stays within
   * `limit`; otherwise records nothing. Either way, answers the window's state after the decision.
   */
  windowAdmit(key: string, request: WindowAdmitRequest): Promise<WindowDecision>;

  /**
   * Replaces the cost of reservation `id` with `cost` (0 releases it), keeping its timestamp:
   * how a TPM reservation is reconciled with the upstream's actual usage. No-op when the entry
   * has already left the window.
   */
  windowAdjust(key: string, id: string, cost: number, windowMs: number): Promise<void>;

  /** The window's state without admitting anything. */
  windowState(key: string, limit: number, windowMs: number): Promise<WindowDecision>;

  /**
   * One call's admission against every limit of its key, and of its team (`team`), in one atomic step: a request window
   * (a count of calls, read only through admitCall: a store may keep it apart from the sliding
   * log of the same name), a token window (a sliding log, entries under `id`) and a budget
   * counter (room when it exists and `value + amount <= limit`), each optional. Either every
   * limit admits and each takes its share, or none takes anything; each part of the answer says
   * whether that limit alone would admit. The budget (DESIGN.md section 5) is a counter of settled
   * spend and a log of reservations, each held for `leaseMs` after it was taken or last renewed:
   * it admits while `limit - spent - held > 0`, and then takes the call's whole `amount` as a
   * reservation under `id`. A missing spend counter is not created: the call is refused with budget status
   * `missing`, so the caller can seed it (from the database, with `setIfAbsent`) and ask again.
   */
  admitCall(request: CallAdmissionRequest): Promise<CallAdmissionDecision>;

  /**
   * Finished calls of one virtual key (and its team, `team`) settled in one step: each token entry becomes its `cost`
   * (windowAdjust's rule, 0 releases it); the budget reservations named are released and
   * `budget.costCents` is added to the spend counter when it exists. The keys share one
   * `{hash-tag}`, as every key of one virtual key does.
   */
  settleCalls(settlement: CallsSettlement): Promise<void>;

  /**
   * Holds the named budget reservations for another `leaseMs` from now: how a call that runs
   * longer than one lease keeps its reservation. One the log no longer has (the store lost it:
   * FLUSHDB, a failover to an empty replica, a lease lapsed in a stall) is taken again with its
   * cost, since the caller names only calls still in flight.
   */
  renewReservations(renewal: ReservationRenewal): Promise<void>;

  /**
   * Rebuilds a budget the store lost (DESIGN.md section 5; docs/operations.md, Failure modes), in
   * one atomic step: seeds the spend counter with `spentCents` when it is absent, and takes each
   * of `reservations` the log does not have (an entry it has is kept). True when it seeded the
   * counter; false when another call or replica already had.
   */
  rebuildBudget(rebuild: BudgetRebuild): Promise<boolean>;

  /** Publishes to every subscriber of `channel` in every replica (including this one). */
  publish(channel: string, message: string): Promise<void>;
  /** Subscribes; the returned function unsubscribes. */
  subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>>;

  /** Resolves when the store answers; rejects quickly (about a second at most) when it does not. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface WindowAdmitRequest {
  /** Unique reservation id (the request id), so the entry can be adjusted later. */
  id: string;
  cost: number;
  limit: number;
  windowMs: number;
}

export interface WindowDecision {
  admitted: boolean;
  /** Sum of the entries in the window after the decision. */
  used: number;
  limit: number;
  remaining: number;
  /** Milliseconds until enough of the window expires to free `cost` (0 when admitted). */
  retryAfterMs: number;
  /** Milliseconds until the whole window is clear (for x-ratelimit-reset-*). */
  resetMs: number;
}

/** The limits of one scope (a virtual key or its team) in a call's admission; each optional. */
export interface ScopeLimits {
  /** One unit per call, never adjusted; a limit of 0 reads the count without taking anything. */
  requests: { key: string; limit: number } | null;
  tokens: { key: string; limit: number; cost: number } | null;
  budget: BudgetAdmission | null;
}

/** The key's limits, and its team's when it has one: admitted only when every limit of both admits. */
export interface CallAdmissionRequest extends ScopeLimits {
  /** Reservation id of the window entries (the request id). */
  id: string;
  windowMs: number;
  /** The team's limits, decided in the same step; their keys share the key's `{hash-tag}`. */
  team?: ScopeLimits | null;
}

/** The budget part of a call's admission: spend counter `key`, reservation log `heldKey`. */
export interface BudgetAdmission {
  key: string;
  heldKey: string;
  limit: number;
  /** The call's worst-case cost, reserved whole when admitted. */
  amount: number;
  /** How long a reservation holds without renewal. */
  leaseMs: number;
}

export interface ReservationRenewal {
  heldKey: string;
  /** The calls in flight: each reservation's id and the cents it holds. */
  reservations: readonly TokenEntry[];
  leaseMs: number;
}

/** A budget's spend counter `key` and reservation log `heldKey`, rebuilt as one caller knows them. */
export interface BudgetRebuild {
  key: string;
  heldKey: string;
  /** The settled spend to seed the counter with. */
  spentCents: number;
  /** The counter's time to live. */
  ttlMs: number;
  /** The caller's calls in flight: reservation id and cents. */
  reservations: readonly TokenEntry[];
  leaseMs: number;
}

/** One scope's part of the decision. */
export interface ScopeDecision {
  /** The windows as they stand after the decision. */
  requests: WindowDecision | null;
  tokens: WindowDecision | null;
  /** `admitted`: the budget has room (`held` includes the amount only when the call was admitted). */
  budget: BudgetDecision | null;
}

export interface CallAdmissionDecision extends ScopeDecision {
  /** Every limit admitted and took its share; when false, nothing was taken. */
  admitted: boolean;
  /** The team's part; null (or absent) when the request had no team. */
  team?: ScopeDecision | null;
}

/** What finished calls change in one scope's limits. */
export interface ScopeSettlement {
  tokens: { key: string; entries: readonly TokenEntry[] } | null;
  budget: {
    key: string;
    heldKey: string;
    costCents: number;
    release: readonly string[];
    leaseMs: number;
  } | null;
}

export interface CallsSettlement extends ScopeSettlement {
  windowMs: number;
  /** The team's part, settled in the same step. */
  team?: ScopeSettlement | null;
}

/** A window entry (a token window's, or a budget reservation): the reservation `id` and its cost. */
export interface TokenEntry {
  id: string;
  cost: number;
}

/** `spent`: settled spend; `held`: the reservations of the calls in flight. */
export type BudgetDecision =
  | { status: 'admitted' | 'rejected'; spent: number; held: number }
  | { status: 'missing' };

/** Raised when the store cannot be reached; the HTTP layer maps it to 503 service_unavailable. */
export class CacheUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CacheUnavailableError';
  }
}
