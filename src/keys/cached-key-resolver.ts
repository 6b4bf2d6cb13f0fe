import type { Credential } from '../auth/credentials.ts';
import { KEY_SECRET_PREFIX } from '../auth/key-hash.ts';
import type { VirtualKey, VirtualKeyResolver } from '../auth/principal.ts';
import type { CacheStore } from '../cache/cache-store.ts';
import { CHANNELS } from '../cache/channels.ts';
import type { Db } from '../store/database.ts';
import { KeyRowBatches } from './key-row-batches.ts';
import { findKeyTeam } from './virtual-key-repository.ts';
import { type TeamRow, type VirtualKeyRow, virtualKeyFromRow } from './virtual-key-row.ts';

interface Entry {
  key: VirtualKey | null;
  expiresAtMs: number;
}

/** Unknown secrets are remembered briefly, so a client retrying a bad key does not hammer the database. */
const NEGATIVE_TTL_MS = 5_000;
const MAX_ENTRIES = 100_000;
/** Where the entries of unknown secrets are indexed: a key created or rotated may be one of them. */
const UNKNOWN_SECRETS = '';

/**
 * Key lookups on the hot path (issue: admin, point 4): answered from memory, loaded from the
 * database on a miss. A change of a key or a team is announced with its id on every replica
 * (cache store pub/sub), which drops the entries that change makes stale: that key's, or the
 * keys of that team, and the unknown secrets; the others stay, so a change costs the fleet one
 * database read per affected key, not one per active key.
 */
export class CachedKeyResolver implements VirtualKeyResolver {
  readonly #db: Db;
  readonly #rows: KeyRowBatches;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  /** By key hash, oldest first: a full cache drops its oldest entry. */
  readonly #entries = new Map<string, Entry>();
  /** Entry ids by the key id and team id whose change makes them stale (UNKNOWN_SECRETS for null). */
  readonly #byHolder = new Map<string, Set<string>>();
  /**
   * Lookups under way, by key hash: a burst of calls with a key not yet cached makes one database
   * read, not one per call (each would wait for a pool connection within the dependency timeout).
   */
  readonly #loading = new Map<string, Promise<VirtualKey | null>>();
  /**
   * Bumped by every change. A lookup that read the database before a change must not cache what
   * it read: it may predate the change.
   */
  #generation = 0;

  constructor(db: Db, ttlMs: number, maxEntries = MAX_ENTRIES) {
    this.#db = db;
    this.#rows = new KeyRowBatches(db);
    this.#ttlMs = ttlMs;
    this.#maxEntries = maxEntries;
  }

  /** Subscribes to key and team changes; returns the unsubscribe function. */
  listen(cache: CacheStore): Promise<() => Promise<void>> {
    return cache.subscribe(CHANNELS.keysChanged, (holderId) => this.forget(holderId));
  }

  /** Drops what a change of the key or team `holderId` makes stale (see the class). */
  forget(holderId: string): void {
    this.#generation++;
    // A read begun before the change must not answer the callers that come after it.
    this.#loading.clear();
    for (const holder of [holderId, UNKNOWN_SECRETS]) {
      for (const id of this.#byHolder.get(holder) ?? []) this.#delete(id);
    }
  }

  #set(id: string, entry: Entry): void {
    this.#delete(id);
    if (this.#entries.size >= this.#maxEntries) this.#delete(this.#entries.keys().next().value as string);
    this.#entries.set(id, entry);
    for (const holder of holdersOf(entry)) {
      const ids = this.#byHolder.get(holder);
      if (ids === undefined) this.#byHolder.set(holder, new Set([id]));
      else ids.add(id);
    }
  }

  #delete(id: string): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    this.#entries.delete(id);
    for (const holder of holdersOf(entry)) {
      const ids = this.#byHolder.get(holder);
      ids?.delete(id);
      if (ids?.size === 0) this.#byHolder.delete(holder);
    }
  }

  async resolve(credential: Credential): Promise<VirtualKey | null> {
    if (!credential.secret.startsWith(KEY_SECRET_PREFIX)) return null;
    const hash = credential.digest;
    const id = hash.toString('base64');
    const now = Date.now();
    const cached = this.#entries.get(id);
    if (cached !== undefined && cached.expiresAtMs > now) return cached.key;
    const loading = this.#loading.get(id);
    if (loading !== undefined) return loading;
    const load = this.#load(id, hash, now).finally(() => this.#loading.delete(id));
    this.#loading.set(id, load);
    return load;
  }

  async #load(id: string, hash: Buffer, now: number): Promise<VirtualKey | null> {
    const generation = this.#generation;
    const row = await this.#rows.rowOf(id, hash);
    const team = row?.team_id == null ? undefined : await findKeyTeam(this.#db, row.team_id);
    const match = row === undefined ? null : matchOf(row, team, hash, now);
    const key = match?.key ?? null;
    if (generation !== this.#generation) return key;
    const ttlMs = key === null ? Math.min(NEGATIVE_TTL_MS, this.#ttlMs) : this.#ttlMs;
    // A replaced secret's entry ends with its grace period, so a replica that cached it refuses it
    // from then on without hearing of any change.
    this.#set(id, { key, expiresAtMs: Math.min(now + ttlMs, match?.untilMs ?? Infinity) });
    return key;
  }
}

/** The key and team whose change makes an entry stale; UNKNOWN_SECRETS for an unknown secret. */
function holdersOf(entry: Entry): string[] {
  if (entry.key === null) return [UNKNOWN_SECRETS];
  return entry.key.team === null ? [entry.key.id] : [entry.key.id, entry.key.team.id];
}

/**
 * The key when `hash` is its current secret (`untilMs` Infinity: no end but the key's own) or the
 * secret a rotation replaced while its grace period lasts; else null. The grace period is checked
 * on this clock, the same one that ends the cache entry.
 */
function matchOf(
  row: VirtualKeyRow,
  team: TeamRow | undefined,
  hash: Buffer,
  nowMs: number,
): { key: VirtualKey; untilMs: number } | null {
  if (row.key_hash.equals(hash)) return { key: virtualKeyFromRow(row, team), untilMs: Infinity };
  const until = row.previous_key_expires_at;
  const untilMs = until === null ? 0 : new Date(until).getTime();
  return untilMs > nowMs ? { key: virtualKeyFromRow(row, team), untilMs } : null;
}
