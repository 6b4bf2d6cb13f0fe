import type { CacheStore } from '../cache/cache-store.ts';
import { CHANNELS } from '../cache/channels.ts';
import { ROUTER_KEYS } from './router-keys.ts';

/**
 * The longest this replica routes on its mirror of a deployment's cooldown without reading the
 * cache store again. Announcements keep the mirror current; this read only repairs what they
 * cannot: one lost while the subscriber connection was down, or a cache store that restarted and
 * forgot its cooldowns. So a lost announcement delays a cooldown here by at most five seconds,
 * and a busy replica reads one key per deployment every five seconds instead of one per call.
 */
export const COOLDOWN_RESYNC_MS = 5_000;

/** What a replica that put a deployment in cooldown tells the others (CHANNELS.routerCooldowns). */
export interface CooldownAnnouncement {
  deploymentId: string;
  /**
   * How long the cooldown lasts from now. Relative, so replicas whose clocks disagree still agree
   * on its end, up to the delivery delay.
   */
  remainingMs: number;
}

interface MirrorEntry {
  untilMs: number;
  /** Order of the writes to the mirror: a read of the store older than an entry does not replace it. */
  version: number;
}

/**
 * This replica's copy of the cooldowns held in the cache store, so that picking a deployment
 * reads memory instead of one key per pool member and call. The cache store stays the authority
 * (CooldownTracker writes the failure window and the cooldown key there); the mirror learns of a
 * cooldown from the replica that started it (CHANNELS.routerCooldowns), reads a deployment's key
 * the first time it routes to it (so a replica that starts sees cooldowns already running), and
 * again at most every COOLDOWN_RESYNC_MS, in the background. Reads that fail leave the mirror as
 * it is: routing goes on when the cache store hiccups.
 */
export class CooldownMirror {
  readonly #cache: CacheStore;
  /** Monotonic ms. */
  readonly #now: () => number;
  readonly #entries = new Map<string, MirrorEntry>();
  readonly #checkedAtMs = new Map<string, number>();
  readonly #firstReads = new Map<string, Promise<void>>();
  #version = 0;
  #unsubscribe: (() => Promise<void>) | null = null;
  #subscribing = false;
  #subscribeTriedAtMs = Number.NEGATIVE_INFINITY;
  #closed = false;

  constructor(cache: CacheStore, now: () => number) {
    this.#cache = cache;
    this.#now = now;
  }

  /**
   * Subscribes to the announcements of every replica. One that fails (the cache store down at
   * start-up) is tried again by `sync` every COOLDOWN_RESYNC_MS until it succeeds.
   */
  async watch(): Promise<void> {
    if (this.#unsubscribe !== null || this.#subscribing || this.#closed) return;
    this.#subscribing = true;
    this.#subscribeTriedAtMs = this.#now();
    try {
      const unsubscribe = await this.#cache.subscribe(CHANNELS.routerCooldowns, (message) =>
        this.#onAnnouncement(message),
      );
      if (this.#closed) await unsubscribe();
      else this.#unsubscribe = unsubscribe;
    } catch {
      // Retried by sync(); until then the periodic reads keep the mirror close.
    } finally {
      this.#subscribing = false;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const unsubscribe = this.#unsubscribe;
    this.#unsubscribe = null;
    await unsubscribe?.();
  }

  /** Milliseconds until the deployment is back in its pool, as this replica knows it; 0 when in. */
  remainingMs(deploymentId: string): number {
    const entry = this.#entries.get(deploymentId);
    if (entry === undefined) return 0;
    const remainingMs = entry.untilMs - this.#now();
    if (remainingMs > 0) return remainingMs;
    this.#entries.delete(deploymentId);
    return 0;
  }

  /** The deployment is in cooldown for `remainingMs` from now (started here, or announced). */
  cool(deploymentId: string, remainingMs: number): void {
    this.#entries.set(deploymentId, { untilMs: this.#now() + remainingMs, version: ++this.#version });
  }

  /**
   * Readies the mirror of one deployment before a pick: answers the read to wait for the first
   * time this replica routes to it, null otherwise (the hot path: no round trip), starting a
   * background read when the last one is older than COOLDOWN_RESYNC_MS.
   */
  sync(deploymentId: string): Promise<void> | null {
    const now = this.#now();
    if (this.#unsubscribe === null && now - this.#subscribeTriedAtMs >= COOLDOWN_RESYNC_MS) void this.watch();
    const firstRead = this.#firstReads.get(deploymentId);
    if (firstRead !== undefined) return firstRead;
    const checkedAtMs = this.#checkedAtMs.get(deploymentId);
    if (checkedAtMs === undefined) return this.#firstRead(deploymentId);
    if (now - checkedAtMs >= COOLDOWN_RESYNC_MS) void this.reconcile(deploymentId);
    return null;
  }

  /** Reads the deployment's cooldown key and makes the mirror agree, unless it learnt newer meanwhile. */
  async reconcile(deploymentId: string): Promise<void> {
    this.#checkedAtMs.set(deploymentId, this.#now());
    const versionBefore = this.#version;
    let ttlMs: number | null;
    try {
      ttlMs = await this.#cache.ttlMs(ROUTER_KEYS.cooldown(deploymentId));
    } catch {
      return;
    }
    const entry = this.#entries.get(deploymentId);
    if (entry !== undefined && entry.version > versionBefore) return;
    if (ttlMs === null || ttlMs <= 0) this.#entries.delete(deploymentId);
    else this.cool(deploymentId, ttlMs);
  }

  #firstRead(deploymentId: string): Promise<void> {
    const read = this.reconcile(deploymentId).finally(() => this.#firstReads.delete(deploymentId));
    this.#firstReads.set(deploymentId, read);
    return read;
  }

  #onAnnouncement(message: string): void {
    const announcement = parseAnnouncement(message);
    if (announcement !== null) this.cool(announcement.deploymentId, announcement.remainingMs);
  }
}

export function formatAnnouncement(announcement: CooldownAnnouncement): string {
  return JSON.stringify(announcement);
}

/** The announcement in a message, or null for one this version does not understand. */
export function parseAnnouncement(message: string): CooldownAnnouncement | null {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { deploymentId, remainingMs } = value as Record<string, unknown>;
  if (typeof deploymentId !== 'string' || deploymentId === '') return null;
  if (typeof remainingMs !== 'number' || !Number.isFinite(remainingMs) || remainingMs <= 0) return null;
  return { deploymentId, remainingMs };
}
