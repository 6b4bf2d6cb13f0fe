import type { CacheStore } from '../cache/cache-store.ts';
import { CHANNELS } from '../cache/channels.ts';
import { ConfigurationSnapshot } from '../cache/configuration-snapshot.ts';
import type { Logger } from '../diagnostics/logger.ts';
import type { Db } from '../store/database.ts';
import { RouterSettingsRepository } from './router-settings-repository.ts';
import {
  DEFAULT_ROUTER_SETTINGS,
  type RouterSettings,
  routerSettingsSchema,
} from './router-settings-schema.ts';

export {
  DEFAULT_ROUTER_SETTINGS,
  FALLBACK_KINDS,
  type FallbackKind,
  ROUTING_STRATEGIES,
  type RouterSettings,
  type RoutingStrategy,
  routerSettingsSchema,
} from './router-settings-schema.ts';

/** Periodic reload interval: a safety net for a missed pub/sub message. */
const REFRESH_INTERVAL_MS = 30_000;

/**
 * Router settings held in memory for the hot path (`current()` is a field read), loaded from the
 * database, saved by `PUT /admin/router-settings`, and reloaded on every replica when any replica
 * announces a change (CHANNELS.routerSettingsChanged) and every 30 s. While the database is down,
 * or if the stored value no longer validates, the last good settings keep serving.
 */
export class RouterSettingsStore {
  readonly #repository: RouterSettingsRepository;
  readonly #cache: CacheStore;
  readonly #logger: Logger;
  #current: RouterSettings = deepFreeze(routerSettingsSchema.parse(DEFAULT_ROUTER_SETTINGS));
  #loadsStarted = 0;
  #loadApplied = 0;
  /** The stored value's copy in the cache store, for a replica that starts while Postgres is unreachable. */
  readonly #saved: ConfigurationSnapshot<unknown>;

  constructor(db: Db, cache: CacheStore, logger: Logger) {
    this.#repository = new RouterSettingsRepository(db);
    this.#cache = cache;
    this.#logger = logger;
    this.#saved = new ConfigurationSnapshot(cache, 'router-settings', logger);
  }

  /** The settings in force: a frozen object, replaced (never mutated) when they change. */
  current(): RouterSettings {
    return this.#current;
  }

  /** Reads the stored settings (defaults when none were ever saved); the latest started load wins. */
  async load(): Promise<void> {
    const sequence = ++this.#loadsStarted;
    const stored = await this.#repository.read();
    if (sequence < this.#loadApplied) return;
    this.#apply(stored ?? {}, sequence);
    void this.#saved.save(stored ?? {});
  }

  /** The settings of the cache store's copy (a start while Postgres is unreachable); false when there is none. */
  async loadSaved(): Promise<boolean> {
    const sequence = ++this.#loadsStarted;
    const saved = await this.#saved.read();
    if (saved === null || sequence < this.#loadApplied) return false;
    this.#apply(saved.value, sequence);
    return true;
  }

  #apply(stored: unknown, sequence: number): void {
    const parsed = routerSettingsSchema.safeParse(stored);
    this.#loadApplied = sequence;
    if (!parsed.success) {
      this.#logger.error(
        { issues: parsed.error.issues },
        'stored router settings do not validate; keeping the settings in force',
      );
      return;
    }
    this.#current = deepFreeze(parsed.data);
  }

  /** Reloads on change announcements and every 30 s; returns a stop function. */
  async watch(): Promise<() => Promise<void>> {
    const unsubscribe = await this.#cache.subscribe(
      CHANNELS.routerSettingsChanged,
      () => void this.#reload(),
    );
    const timer = setInterval(() => void this.#reload(), REFRESH_INTERVAL_MS).unref();
    return async () => {
      clearInterval(timer);
      await unsubscribe();
    };
  }

  /**
   * Stores validated settings, applies them on this replica before returning, and tells the
   * others. A failed publish is logged: the others catch up at their periodic reload.
   */
  async save(settings: RouterSettings): Promise<RouterSettings> {
    await this.#repository.write(settings);
    await this.load();
    try {
      await this.#cache.publish(CHANNELS.routerSettingsChanged, 'put');
    } catch (error) {
      this.#logger.warn(
        { err: error },
        'could not announce a router settings change; other replicas pick it up at their periodic reload',
      );
    }
    return this.#current;
  }

  async #reload(): Promise<void> {
    try {
      await this.load();
    } catch (error) {
      this.#logger.warn({ err: error }, 'router settings reload failed; keeping the settings in force');
    }
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const field of Object.values(value)) deepFreeze(field);
    Object.freeze(value);
  }
  return value;
}
