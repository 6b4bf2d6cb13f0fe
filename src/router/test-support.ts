import type { CacheStore, WindowAdmitRequest } from '../cache/cache-store.ts';
import { SlidingLog } from '../cache/sliding-log.ts';

/**
 * The part of the cache store the cooldown bookkeeping uses, on a clock the test moves, shared by
 * the trackers of several replicas. Announcements are delivered after the publisher's turn, as a
 * network would, unless `loseAnnouncements` (a subscriber connection that was down); `holdReads`
 * keeps `ttlMs` answers back until `releaseReads()`.
 */
export class ClockStore {
  nowMs = 1_000_000;
  holdReads = false;
  loseAnnouncements = false;
  /** Every operation by name, in order. */
  readonly operations: string[] = [];
  readonly #values = new Map<string, { value: string; expiresAt: number }>();
  readonly #logs = new Map<string, SlidingLog>();
  readonly #channels = new Map<string, Set<(message: string) => void>>();
  #held: (() => void)[] = [];

  asCacheStore(): CacheStore {
    return this as unknown as CacheStore;
  }

  /** Forgets every key, as a restarted cache store does. */
  clear(): void {
    this.#values.clear();
    this.#logs.clear();
  }

  releaseReads(): void {
    this.holdReads = false;
    for (const release of this.#held.splice(0)) release();
  }

  async windowAdmit(key: string, request: WindowAdmitRequest) {
    this.operations.push('windowAdmit');
    const log = this.#logs.get(key) ?? new SlidingLog();
    this.#logs.set(key, log);
    log.prune(this.nowMs, request.windowMs);
    const admitted = log.admit(this.nowMs, request.id, request.cost, request.limit);
    return log.decide(this.nowMs, admitted, request.cost, request.limit);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    this.operations.push('setIfAbsent');
    if (this.#ttl(key) !== null) return false;
    this.#values.set(key, { value, expiresAt: this.nowMs + ttlMs });
    return true;
  }

  async ttlMs(key: string): Promise<number | null> {
    this.operations.push('ttlMs');
    if (this.holdReads) await new Promise<void>((resolve) => this.#held.push(resolve));
    return this.#ttl(key);
  }

  async publish(channel: string, message: string): Promise<void> {
    this.operations.push('publish');
    if (this.loseAnnouncements) return;
    for (const handler of this.#channels.get(channel) ?? []) queueMicrotask(() => handler(message));
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    this.operations.push('subscribe');
    const handlers = this.#channels.get(channel) ?? new Set();
    this.#channels.set(channel, handlers);
    const subscription = (message: string) => handler(message);
    handlers.add(subscription);
    return async () => {
      handlers.delete(subscription);
    };
  }

  #ttl(key: string): number | null {
    const entry = this.#values.get(key);
    if (entry === undefined || entry.expiresAt <= this.nowMs) return null;
    return entry.expiresAt - this.nowMs;
  }
}
