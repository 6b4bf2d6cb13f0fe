import type { Credential } from '../auth/credentials.ts';
import { KEY_SECRET_PREFIX } from '../auth/key-hash.ts';
import type { VirtualKey, VirtualKeyResolver } from '../auth/principal.ts';
import type { CacheStore } from '../cache/cache-store.ts';
import { CHANNELS } from '../cache/channels.ts';
import type { Db } from '../store/database.ts';
import { findKeyTeam } from './virtual-key-repository.ts';
import { type TeamRow, type VirtualKeyRow, virtualKeyFromRow } from './virtual-key-row.ts';

interface Entry {
  key: VirtualKey | null;
  expiresAtMs: number;
}

/** Unknown secrets are remembered briefly, so a client retrying a bad key does not hammer the database. */
const NEGATIVE_TTL_MS = 5_000;
const MAX_ENTRIES = 100_000;

/**
 * Key lookups on the hot path (issue: admin, point 4): answered from memory, loaded from the
 * database on a miss, and dropped on every replica when any key changes (cache store pub/sub).
 */
export class CachedKeyResolver implements VirtualKeyResolver {
  readonly #db: Db;
  readonly #ttlMs: number;
  readonly #entries = new Map<string, Entry>();
  /**
   * Lookups under way, by key hash: a burst of calls with a key not yet cached makes one database
   * read, not one per call (each would wait for a pool connection within the dependency timeout).
   */
  readonly #loading = new Map<string, Promise<VirtualKey | null>>();
  /**
   * Bumped by clear(). A lookup that read the database before a clear must not cache what it read:
   * it may predate the change the clear announced.
   */
  #generation = 0;

  constructor(db: Db, ttlMs: number) {
    this.#db = db;
    this.#ttlMs = ttlMs;
  }

  /** Subscribes to key changes; returns the unsubscribe function. */
  listen(cache: CacheStore): Promise<() => Promise<void>> {
    return cache.subscribe(CHANNELS.keysChanged, () => this.clear());
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
    // A read begun before the change must not answer the callers that come after it.
    this.#loading.clear();
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
    const row = await this.#db
      .selectFrom('virtual_keys')
      .selectAll()
      .where((eb) => eb.or([eb('key_hash', '=', hash), eb('previous_key_hash', '=', hash)]))
      .executeTakeFirst();
    const team = row?.team_id == null ? undefined : await findKeyTeam(this.#db, row.team_id);
    const match = row === undefined ? null : matchOf(row, team, hash, now);
    const key = match?.key ?? null;
    if (generation !== this.#generation) return key;
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    const ttlMs = key === null ? Math.min(NEGATIVE_TTL_MS, this.#ttlMs) : this.#ttlMs;
    // A replaced secret's entry ends with its grace period, so a replica that cached it refuses it
    // from then on without hearing of any change.
    this.#entries.set(id, { key, expiresAtMs: Math.min(now + ttlMs, match?.untilMs ?? Infinity) });
    return key;
  }
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
