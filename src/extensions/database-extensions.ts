import type { ConfigurationSnapshot } from '../cache/configuration-snapshot.ts';
import { isEnvelopeError, type Keyring } from '../crypto/index.ts';
import type { Logger } from '../diagnostics/logger.ts';
import type { ExtensionDefinition } from './extension.ts';
import type { ExtensionRepository, ExtensionRow } from './extension-repository.ts';
import type { ExtensionSource } from './extension-runtime.ts';

/** Variant B's extensions: rows of the `extensions` table, their sources opened with the keyring. */
export class DatabaseExtensions implements ExtensionSource {
  readonly name = 'database';
  readonly #repository: ExtensionRepository;
  readonly #keyring: Keyring;
  readonly #logger: Logger;
  readonly #saved: ConfigurationSnapshot<ExtensionRow[]>;
  /** Rows to load once instead of the database's: the cache store's copy, at a start without Postgres. */
  #preloaded: ExtensionRow[] | null = null;

  constructor(
    repository: ExtensionRepository,
    keyring: Keyring,
    logger: Logger,
    saved: ConfigurationSnapshot<ExtensionRow[]>,
  ) {
    this.#repository = repository;
    this.#keyring = keyring;
    this.#logger = logger;
    this.#saved = saved;
  }

  /**
   * The next load takes the cache store's copy instead of the database (a start while Postgres is
   * unreachable); the ones after it read the database again. False when there is no copy.
   */
  async useSavedOnce(): Promise<boolean> {
    const saved = await this.#saved.read();
    this.#preloaded = saved?.value ?? null;
    return saved !== null;
  }

  async load(): Promise<ExtensionDefinition[]> {
    const preloaded = this.#preloaded;
    this.#preloaded = null;
    const rows = preloaded ?? (await this.#repository.all());
    if (preloaded === null) void this.#saved.save(rows);
    const definitions: ExtensionDefinition[] = [];
    for (const row of rows) {
      const source = this.#open(row);
      if (source !== null) definitions.push(definitionOf(row, source));
    }
    return definitions;
  }

  /** A source this keyring cannot open is logged and left out; the others load. */
  #open(row: ExtensionRow): string | null {
    try {
      return this.#keyring.openString('extension-artifact', row.source_envelope);
    } catch (error) {
      if (!isEnvelopeError(error)) throw error;
      this.#logger.error(
        { extensionId: row.id, keyId: row.source_key_id, keyIds: this.#keyring.keyIds },
        'extension source cannot be opened with this keyring: the extension is not loaded until the key is restored or the source is PATCHed',
      );
      return null;
    }
  }
}

export function definitionOf(row: ExtensionRow, source: string): ExtensionDefinition {
  return {
    id: row.id,
    description: row.description,
    critical: row.critical,
    enabled: row.enabled,
    models: row.models,
    source,
    config: row.config ?? null,
    limits: { timeoutMs: row.timeout_ms, memoryMb: row.memory_mb },
    origin: 'database',
    configName: row.config_name,
  };
}
