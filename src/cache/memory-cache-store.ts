import { deliverToSubscriber } from './cache-diagnostics.ts';
import type {
  BudgetAdmission,
  BudgetDecision,
  BudgetRebuild,
  CacheStore,
  CallAdmissionDecision,
  CallAdmissionRequest,
  CallsSettlement,
  ReservationRenewal,
  ScopeDecision,
  ScopeLimits,
  ScopeSettlement,
  TokenEntry,
  WindowAdmitRequest,
  WindowDecision,
} from './cache-store.ts';
import { CacheUnavailableError } from './cache-store.ts';
import { emptyWindowDecision, SlidingLog } from './sliding-log.ts';

export interface MemoryCacheStoreOptions {
  /** How often idle keys and windows are swept; expiry is also checked lazily on every access. */
  sweepIntervalMs?: number;
}

interface WindowLimit {
  key: string;
  cost: number;
  limit: number;
}

/** Long enough to cost nothing, short enough that idle windows do not pile up. */
const DEFAULT_SWEEP_INTERVAL_MS = 10_000;

interface ValueEntry {
  /**
   * The string as set, or the number the last arithmetic left: a counter is turned into text
   * only when read, so incrBy and the budget counter neither parse nor format on every call.
   */
  value: string | number;
  /** Monotonic ms; Infinity when the key has no expiry. */
  expiresAt: number;
}

/**
 * The in-process cache store of the embedded default (DESIGN.md section 1): the same semantics
 * as the Redis store for one process. Every operation runs synchronously inside one call, so it
 * is atomic by construction. Time is monotonic (`performance.now()`), so a wall-clock jump never
 * stretches or shrinks a window. A `ttlMs` of 0 or less means no expiry, as in the Redis store.
 */
export class MemoryCacheStore implements CacheStore {
  readonly kind = 'memory' as const;
  #values = new Map<string, ValueEntry>();
  #windows = new Map<string, SlidingLog>();
  #channels = new Map<string, Set<(message: string) => void>>();
  #sweepTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: MemoryCacheStoreOptions = {}) {
    this.#sweepTimer = setInterval(() => this.#sweep(), options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
    this.#sweepTimer.unref();
  }

  async incrBy(key: string, by: number, ttlMs: number): Promise<number> {
    const now = this.#now();
    const entry = this.#live(key, now);
    if (entry === undefined) {
      this.#values.set(key, { value: by, expiresAt: expiryOf(now, ttlMs) });
      return by;
    }
    const next = numberIn(key, entry) + by;
    entry.value = next;
    return next;
  }

  async get(key: string): Promise<string | null> {
    const entry = this.#live(key, this.#now());
    if (entry === undefined) return null;
    return typeof entry.value === 'string' ? entry.value : String(entry.value);
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    const now = this.#now();
    this.#values.set(key, { value, expiresAt: expiryOf(now, ttlMs) });
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const now = this.#now();
    if (this.#live(key, now) !== undefined) return false;
    this.#values.set(key, { value, expiresAt: expiryOf(now, ttlMs) });
    return true;
  }

  async del(key: string): Promise<void> {
    this.#now();
    this.#values.delete(key);
    this.#windows.delete(key);
  }

  async ttlMs(key: string): Promise<number | null> {
    const now = this.#now();
    const entry = this.#live(key, now);
    if (entry === undefined || entry.expiresAt === Number.POSITIVE_INFINITY) return null;
    return Math.ceil(entry.expiresAt - now);
  }

  async windowAdmit(key: string, request: WindowAdmitRequest): Promise<WindowDecision> {
    const now = this.#now();
    const log = this.#window(key, now, request.windowMs);
    const admitted = log.admit(now, request.id, request.cost, request.limit);
    const decision = log.decide(now, admitted, request.cost, request.limit);
    if (log.isEmpty) this.#windows.delete(key);
    return decision;
  }

  async windowAdjust(key: string, id: string, cost: number, windowMs: number): Promise<void> {
    this.#adjust(key, [{ id, cost }], windowMs, this.#now());
  }

  async windowState(key: string, limit: number, windowMs: number): Promise<WindowDecision> {
    const now = this.#now();
    const log = this.#windows.get(key);
    if (log === undefined) return emptyWindowDecision(limit >= 1, limit);
    log.prune(now, windowMs);
    if (log.isEmpty) this.#windows.delete(key);
    // The state a one-unit admission would see, as in the Redis store.
    return log.decide(now, log.used + 1 <= limit, 1, limit);
  }

  async admitCall(request: CallAdmissionRequest): Promise<CallAdmissionDecision> {
    const now = this.#now();
    const key = this.#scopeCheck(request, request, now);
    const team = request.team == null ? null : this.#scopeCheck(request, request.team, now);
    const admitted = key.fits && (team?.fits ?? true);
    if (admitted) {
      key.take();
      team?.take();
    }
    return { admitted, ...key.decide(), team: team?.decide() ?? null };
  }

  async settleCalls(settlement: CallsSettlement): Promise<void> {
    const now = this.#now();
    this.#settleScope(settlement, settlement.windowMs, now);
    if (settlement.team != null) this.#settleScope(settlement.team, settlement.windowMs, now);
  }

  async renewReservations(renewal: ReservationRenewal): Promise<void> {
    this.#hold(renewal.heldKey, renewal.reservations, renewal.leaseMs, this.#now());
  }

  async rebuildBudget(rebuild: BudgetRebuild): Promise<boolean> {
    const now = this.#now();
    const seeded = this.#live(rebuild.key, now) === undefined;
    if (seeded)
      this.#values.set(rebuild.key, { value: rebuild.spentCents, expiresAt: expiryOf(now, rebuild.ttlMs) });
    this.#hold(rebuild.heldKey, rebuild.reservations, rebuild.leaseMs, now);
    return seeded;
  }

  async publish(channel: string, message: string): Promise<void> {
    this.#now();
    const handlers = this.#channels.get(channel);
    if (handlers === undefined) return;
    // Delivered after the publisher's turn, as a network round trip would be; the snapshot keeps
    // a handler that (un)subscribes from changing this delivery.
    for (const handler of [...handlers]) {
      queueMicrotask(() => deliverToSubscriber('memory', channel, handler, message));
    }
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    this.#now();
    // Wrapped so that subscribing the same function twice gives two independent subscriptions.
    const subscription = (message: string) => handler(message);
    let handlers = this.#channels.get(channel);
    if (handlers === undefined) {
      handlers = new Set();
      this.#channels.set(channel, handlers);
    }
    handlers.add(subscription);
    return async () => {
      const current = this.#channels.get(channel);
      if (current === undefined) return;
      current.delete(subscription);
      if (current.size === 0) this.#channels.delete(channel);
    };
  }

  async ping(): Promise<void> {
    this.#now();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sweepTimer);
    this.#values.clear();
    this.#windows.clear();
    this.#channels.clear();
  }

  /** One scope of admitCall: whether every limit fits, taking them, and the decision to answer. */
  #scopeCheck(request: CallAdmissionRequest, limits: ScopeLimits, now: number) {
    const { id, windowMs } = request;
    const requests = limits.requests && this.#windowCheck({ ...limits.requests, cost: 1 }, id, now, windowMs);
    const tokens = limits.tokens && this.#windowCheck(limits.tokens, id, now, windowMs);
    const budget = limits.budget && this.#budgetCheck(limits.budget, id, now);
    return {
      fits: (requests?.fits ?? true) && (tokens?.fits ?? true) && (budget?.fits ?? true),
      take: () => {
        requests?.take();
        tokens?.take();
        budget?.take();
      },
      decide: (): ScopeDecision => ({
        requests: requests?.decide() ?? null,
        tokens: tokens?.decide() ?? null,
        budget: budget?.decision() ?? null,
      }),
    };
  }

  #settleScope({ tokens, budget }: ScopeSettlement, windowMs: number, now: number): void {
    if (tokens !== null) this.#adjust(tokens.key, tokens.entries, windowMs, now);
    if (budget !== null) {
      const counter = this.#live(budget.key, now);
      if (counter !== undefined && budget.costCents !== 0) {
        counter.value = numberIn(budget.key, counter) + budget.costCents;
      }
      const release = budget.release.map((id) => ({ id, cost: 0 }));
      this.#adjust(budget.heldKey, release, budget.leaseMs, now);
    }
  }

  /** Holds each reservation for another lease, taking again those the log lacks. */
  #hold(heldKey: string, reservations: readonly TokenEntry[], leaseMs: number, now: number): void {
    const log = this.#window(heldKey, now, leaseMs);
    for (const { id, cost } of reservations) log.hold(now, id, cost);
    if (log.isEmpty) this.#windows.delete(heldKey);
  }

  /** Replaces the cost of each entry still in the window (0 releases it). */
  #adjust(key: string, entries: readonly TokenEntry[], windowMs: number, now: number): void {
    const log = this.#windows.get(key);
    if (log === undefined) return;
    log.prune(now, windowMs);
    for (const entry of entries) log.adjust(entry.id, entry.cost);
    if (log.isEmpty) this.#windows.delete(key);
  }

  /** The current monotonic time; throws once the store is closed, as the Redis store does. */
  #now(): number {
    if (this.#closed) throw new CacheUnavailableError('the cache store is closed');
    return performance.now();
  }

  #live(key: string, now: number): ValueEntry | undefined {
    const entry = this.#values.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > now) return entry;
    this.#values.delete(key);
    return undefined;
  }

  /** One window of admitCall: whether the entry fits, taking it, and the state to answer. */
  #windowCheck(limit: WindowLimit, id: string, now: number, windowMs: number) {
    const log = this.#window(limit.key, now, windowMs);
    const fits = log.fits(id, limit.cost, limit.limit);
    return {
      fits,
      take: () => log.admit(now, id, limit.cost, limit.limit),
      decide: () => {
        const decision = log.decide(now, fits, limit.cost, limit.limit);
        if (log.isEmpty) this.#windows.delete(limit.key);
        return decision;
      },
    };
  }

  /**
   * The budget of admitCall: room while `limit - spent - held > 0` (DESIGN.md section 5), when
   * the spend counter exists; taking reserves the whole amount in the reservation log.
   */
  #budgetCheck(budget: BudgetAdmission, id: string, now: number) {
    const entry = this.#live(budget.key, now);
    const spent = entry === undefined ? 0 : numberIn(budget.key, entry);
    const log = this.#window(budget.heldKey, now, budget.leaseMs);
    const othersHeld = log.used - log.costOf(id);
    const fits = entry !== undefined && budget.limit - spent - othersHeld > 0;
    return {
      fits,
      take: () => log.admit(now, id, budget.amount, Number.POSITIVE_INFINITY),
      decision: (): BudgetDecision => {
        const held = log.used;
        if (log.isEmpty) this.#windows.delete(budget.heldKey);
        return entry === undefined
          ? { status: 'missing' }
          : { status: fits ? 'admitted' : 'rejected', spent, held };
      },
    };
  }

  #window(key: string, now: number, windowMs: number): SlidingLog {
    let log = this.#windows.get(key);
    if (log === undefined) {
      log = new SlidingLog();
      this.#windows.set(key, log);
    }
    log.prune(now, windowMs);
    return log;
  }

  #sweep(): void {
    const now = performance.now();
    for (const [key, entry] of this.#values) {
      if (entry.expiresAt <= now) this.#values.delete(key);
    }
    for (const [key, log] of this.#windows) {
      log.prune(now, log.windowMs);
      if (log.isEmpty) this.#windows.delete(key);
    }
  }
}

/** Like Redis INCRBYFLOAT, arithmetic on a value that is not a number is an error, not a reset. */
function numberIn(key: string, entry: ValueEntry): number {
  const stored = entry.value;
  const value = typeof stored === 'number' ? stored : Number(stored);
  if (!Number.isFinite(value) || (typeof stored === 'string' && stored.trim() === '')) {
    throw new TypeError(`the value of cache key ${key} is not a number`);
  }
  return value;
}

function expiryOf(now: number, ttlMs: number): number {
  return ttlMs > 0 ? now + ttlMs : Number.POSITIVE_INFINITY;
}
