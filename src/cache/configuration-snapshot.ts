import type { Logger } from '../diagnostics/logger.ts';
import type { CacheStore } from './cache-store.ts';

/** Kept long: a fleet whose configuration does not change still refreshes it hourly. */
const SNAPSHOT_TTL_MS = 30 * 24 * 3_600_000;
/** How often a replica rewrites an unchanged snapshot, so it outlives its TTL. */
const REFRESH_MS = 3_600_000;

/**
 * A copy of a set every replica loads from Postgres (the deployments, the router settings, the
 * extensions), kept in the cache store so a replica that starts while Postgres is unreachable
 * serves what the fleet last loaded (docs/decisions/start-without-postgres.md). Secrets stay the
 * envelopes the rows hold, sealed with the keyring. Each replica writes it after a load from the
 * database, when it changed or an hour after it last wrote it; a failed write is logged and
 * costs nothing else.
 */
export class ConfigurationSnapshot<T> {
  readonly #cache: Pick<CacheStore, 'get' | 'set' | 'kind'>;
  readonly #key: string;
  readonly #logger: Logger;
  #written: { body: string; atMs: number } | null = null;
  /** A failing save is said once, until one succeeds (the store's own outage is reported elsewhere). */
  #failing = false;

  constructor(cache: Pick<CacheStore, 'get' | 'set' | 'kind'>, name: string, logger: Logger) {
    this.#cache = cache;
    this.#key = `snapshot:${name}`;
    this.#logger = logger;
  }

  async save(value: T): Promise<void> {
    // The in-process store ends with the process: a copy there would outlive nothing.
    if (this.#cache.kind === 'memory') return;
    const body = JSON.stringify(value);
    const now = Date.now();
    if (this.#written?.body === body && now - this.#written.atMs < REFRESH_MS) return;
    try {
      // The same text as JSON.stringify({ savedAt, value }), without serializing the value twice.
      const text = `{"savedAt":${JSON.stringify(new Date(now).toISOString())},"value":${body}}`;
      await this.#cache.set(this.#key, text, SNAPSHOT_TTL_MS);
      this.#written = { body, atMs: now };
      this.#failing = false;
    } catch (error) {
      if (!this.#failing) {
        this.#logger.warn(
          { err: error, snapshot: this.#key },
          'could not save the configuration copy to the cache store; a replica started while Postgres is unreachable may serve an older one',
        );
      }
      this.#failing = true;
    }
  }

  /** The last snapshot saved and when, or null when there is none (or the cache store does not answer). */
  async read(): Promise<{ value: T; savedAt: string } | null> {
    try {
      const text = await this.#cache.get(this.#key);
      return text === null ? null : (JSON.parse(text) as { value: T; savedAt: string });
    } catch (error) {
      this.#logger.warn({ err: error, snapshot: this.#key }, 'could not read the configuration snapshot');
      return null;
    }
  }
}
