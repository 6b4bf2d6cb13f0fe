import { announceChange } from '../admin-kit/announce-change.ts';
import type { PageRequest } from '../admin-kit/pagination.ts';
import type { CacheStore } from '../cache/cache-store.ts';
import { CHANNELS } from '../cache/channels.ts';
import type { Keyring } from '../crypto/index.ts';
import type { Logger } from '../diagnostics/logger.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { DEFAULT_EXTENSION_LIMITS } from './extension.ts';
import type { ExtensionRepository, ExtensionUpdate } from './extension-repository.ts';
import type { ExtensionRuntime, ExtensionStatus } from './extension-runtime.ts';
import { ExtensionCompileError, ExtensionSandbox, type SandboxLimits } from './extension-sandbox.ts';
import type { ExtensionCreateInput, ExtensionPatchInput } from './extension-schemas.ts';

export interface ExtensionAdminDeps {
  /** Null in variant A: extensions come only from EXTENSIONS_DIR, and the API cannot write them. */
  repository: ExtensionRepository | null;
  keyring: Keyring;
  cache: CacheStore;
  logger: Logger;
  runtime: ExtensionRuntime;
}

/**
 * The rules of `/admin/extensions` (DESIGN.md section 5, Extensions): a source is compiled and
 * checked for a hook before it is stored, sealed as an `extension-artifact` envelope, and every
 * change is announced to every replica before the caller gets an answer. Extensions loaded from
 * EXTENSIONS_DIR are shown and can be reset, but are changed in their files.
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
    const repository = this.#writable(input.id);
    const limits = { ...DEFAULT_EXTENSION_LIMITS, ...input.limits };
    await compileCheck(input.source, limits);
    const row = await repository.insert({
      id: input.id,
      description: input.description,
      critical: input.critical,
      enabled: input.enabled,
      models: input.models,
      ...this.#sourceColumns(input.source),
      config: JSON.stringify(input.config ?? null),
      timeout_ms: limits.timeoutMs,
      memory_mb: limits.memoryMb,
    });
    if (row === undefined) {
      throw new GatewayError('invalid_request', {
        status: 409,
        param: 'id',
        message: `An extension with id '${input.id}' already exists.`,
      });
    }
    return this.#announced(input.id);
  }

  /** Absent fields stay; a new source (or new limits) is compiled first, and resets the breaker once loaded. */
  async update(id: string, patch: ExtensionPatchInput): Promise<ExtensionStatus | undefined> {
    const repository = this.#writable(id);
    const row = await repository.update(id, async (current) => {
      const limits = {
        timeoutMs: patch.limits?.timeoutMs ?? current.timeout_ms,
        memoryMb: patch.limits?.memoryMb ?? current.memory_mb,
      };
      if (patch.source !== undefined) await compileCheck(patch.source, limits);
      return this.#updateColumns(patch, limits);
    });
    return row === undefined ? undefined : this.#announced(id);
  }

  async delete(id: string): Promise<boolean> {
    const deleted = await this.#writable(id).delete(id);
    if (deleted) await this.#announce(id);
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

  /** The repository, unless the extension (or the variant) is not the API's to change. */
  #writable(id: string): ExtensionRepository {
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
    return repository;
  }

  #sourceColumns(source: string): { source_envelope: string; source_key_id: string } {
    const { keyring } = this.#deps;
    return { source_envelope: keyring.seal('extension-artifact', source), source_key_id: keyring.activeId };
  }

  #updateColumns(patch: ExtensionPatchInput, limits: SandboxLimits): ExtensionUpdate {
    const columns: ExtensionUpdate = { timeout_ms: limits.timeoutMs, memory_mb: limits.memoryMb };
    if (patch.description !== undefined) columns.description = patch.description;
    if (patch.critical !== undefined) columns.critical = patch.critical;
    if (patch.enabled !== undefined) columns.enabled = patch.enabled;
    if (patch.models !== undefined) columns.models = patch.models;
    if (patch.config !== undefined) columns.config = JSON.stringify(patch.config);
    if (patch.source !== undefined) Object.assign(columns, this.#sourceColumns(patch.source));
    return columns;
  }

  async #announced(id: string): Promise<ExtensionStatus> {
    await this.#announce(id);
    const status = this.#deps.runtime.status(id);
    if (status === undefined) throw new Error(`extension ${id} was stored but did not load`);
    return status;
  }

  /** Tells every replica to reload, and reloads this one before answering. */
  async #announce(id: string): Promise<void> {
    await announceChange(this.#deps, {
      channel: CHANNELS.extensionsChanged,
      id,
      context: { extensionId: id },
      failure: 'could not announce an extension change; other replicas pick it up at their periodic reload',
    });
    await this.#deps.runtime.load();
  }
}

/** A 400 naming the problem when the module does not compile or exports neither hook. */
async function compileCheck(source: string, limits: SandboxLimits): Promise<void> {
  try {
    (await ExtensionSandbox.create(source, limits, 1)).dispose();
  } catch (error) {
    if (!(error instanceof ExtensionCompileError)) throw error;
    throw new GatewayError('invalid_request', {
      param: 'source',
      message: `Extension source: ${error.message}.`,
    });
  }
}
