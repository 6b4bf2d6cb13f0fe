import { announceChange } from '../admin-kit/announce-change.ts';
import type { PageRequest } from '../admin-kit/pagination.ts';
import type { CacheStore } from '../cache/cache-store.ts';
import { CHANNELS } from '../cache/channels.ts';
import type { Keyring } from '../crypto/index.ts';
import type { Logger } from '../diagnostics/logger.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { ExtensionRepository } from './extension-repository.ts';
import type { ExtensionRuntime, ExtensionStatus } from './extension-runtime.ts';
import type { ExtensionCreateInput, ExtensionPatchInput } from './extension-schemas.ts';
import { ExtensionStore } from './extension-store.ts';

export interface ExtensionAdminDeps {
  /** Null in variant A: extensions come only from EXTENSIONS_DIR, and the API cannot write them. */
  repository: ExtensionRepository | null;
  keyring: Keyring;
  cache: CacheStore;
  logger: Logger;
  runtime: ExtensionRuntime;
}

/**
 * The rules of `/admin/extensions` (DESIGN.md section 5, Extensions): writes go through
 * ExtensionStore (compiled, sealed, announced), and this replica reloads before the caller gets an
 * answer. Extensions loaded from EXTENSIONS_DIR are shown and can be reset, but are changed in
 * their files.
 */
export class ExtensionAdmin {
  readonly #deps: ExtensionAdminDeps;

  constructor(deps: ExtensionAdminDeps) {
    this.#deps = deps;
  }

  async list(page: PageRequest): Promise<ExtensionStatus[]> {
    const after = page.afterId;
    const all = this.#deps.runtime.statuses();
    return all.filter((status) => after === null || status.definition.id > after).slice(0, page.limit + 1);
  }

  async get(id: string): Promise<ExtensionStatus | undefined> {
    return this.#deps.runtime.status(id);
  }

  async create(input: ExtensionCreateInput): Promise<ExtensionStatus> {
    await this.#writable(input.id).create(input);
    return this.#loaded(input.id);
  }

  /** Absent fields stay; a new source (or new limits) is compiled first, and resets the breaker once loaded. */
  async update(id: string, patch: ExtensionPatchInput): Promise<ExtensionStatus | undefined> {
    const row = await this.#writable(id).update(id, patch);
    return row === undefined ? undefined : this.#loaded(id);
  }

  async delete(id: string): Promise<boolean> {
    const deleted = await this.#writable(id).delete(id);
    if (deleted) await this.#deps.runtime.load();
    return deleted;
  }

  /** Closes the breaker here and, through the cache store, on every other replica. */
  async reset(id: string): Promise<ExtensionStatus | undefined> {
    if (!this.#deps.runtime.reset(id)) return undefined;
    await announceChange(this.#deps, {
      channel: CHANNELS.extensionsReset,
      id,
      context: { extensionId: id },
      failure:
        'could not announce an extension reset; other replicas keep their breaker until reset there or restarted',
    });
    return this.#deps.runtime.status(id);
  }

  /** The store, unless the extension (or the variant) is not the API's to change. */
  #writable(id: string): ExtensionStore {
    const { repository, runtime } = this.#deps;
    if (repository === null) {
      throw new GatewayError('invalid_request', {
        status: 409,
        message: 'Variant A loads extensions from EXTENSIONS_DIR only; change the files there.',
      });
    }
    if (runtime.status(id)?.definition.origin === 'directory') {
      throw new GatewayError('invalid_request', {
        status: 409,
        param: 'id',
        message: `Extension '${id}' is loaded from EXTENSIONS_DIR; change its files there.`,
      });
    }
    return new ExtensionStore({ ...this.#deps, repository });
  }

  /** Reloads this replica before answering (the store told the others), then its status. */
  async #loaded(id: string): Promise<ExtensionStatus> {
    await this.#deps.runtime.load();
    const status = this.#deps.runtime.status(id);
    if (status === undefined) throw new Error(`extension ${id} was stored but did not load`);
    return status;
  }
}
