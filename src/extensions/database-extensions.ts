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

  constructor(repository: ExtensionRepository, keyring: Keyring, logger: Logger) {
    this.#repository = repository;
    this.#keyring = keyring;
    this.#logger = logger;
  }

  async load(): Promise<ExtensionDefinition[]> {
    const definitions: ExtensionDefinition[] = [];
    for (const row of await this.#repository.all()) {
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
