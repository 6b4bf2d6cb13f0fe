import { announceChange } from '../admin-kit/announce-change.ts';
import type { CacheStore } from '../cache/cache-store.ts';
import { CHANNELS } from '../cache/channels.ts';
import type { Keyring } from '../crypto/index.ts';
import type { Logger } from '../diagnostics/logger.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { DEFAULT_EXTENSION_LIMITS } from './extension.ts';
import type { ExtensionRepository, ExtensionRow, ExtensionUpdate } from './extension-repository.ts';
import { ExtensionCompileError, ExtensionSandbox, type SandboxLimits } from './extension-sandbox.ts';
import type { ExtensionCreateInput, ExtensionPatchInput } from './extension-schemas.ts';

export interface ExtensionStoreDeps {
  repository: ExtensionRepository;
  keyring: Keyring;
  cache: Pick<CacheStore, 'publish'>;
  logger: Logger;
}

/**
 * The stored side of an extension change, shared by `/admin/extensions` (ExtensionAdmin) and
 * `switchyard apply`: a source is compiled and checked for a hook before it is stored, sealed as
 * an `extension-artifact` envelope, and every change is announced to the replicas.
 */
export class ExtensionStore {
  readonly #deps: ExtensionStoreDeps;

  constructor(deps: ExtensionStoreDeps) {
    this.#deps = deps;
  }

  async create(input: ExtensionCreateInput): Promise<ExtensionRow> {
    const limits = { ...DEFAULT_EXTENSION_LIMITS, ...input.limits };
    await compileCheck(input.source, limits);
    const row = await this.#deps.repository.insert({
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
    await this.#announce(input.id);
    return row;
  }

  /** Absent fields stay; a new source (or new limits) is compiled first. Undefined: no such extension. */
  async update(id: string, patch: ExtensionPatchInput): Promise<ExtensionRow | undefined> {
    const row = await this.#deps.repository.update(id, async (current) => {
      const limits = {
        timeoutMs: patch.limits?.timeoutMs ?? current.timeout_ms,
        memoryMb: patch.limits?.memoryMb ?? current.memory_mb,
      };
      if (patch.source !== undefined) await compileCheck(patch.source, limits);
      return this.#updateColumns(patch, limits);
    });
    if (row !== undefined) await this.#announce(id);
    return row;
  }

  async delete(id: string): Promise<boolean> {
    const deleted = await this.#deps.repository.delete(id);
    if (deleted) await this.#announce(id);
    return deleted;
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

  /** Tells every replica to reload (a failed publish is logged: they catch up at their periodic reload). */
  #announce(id: string): Promise<void> {
    return announceChange(this.#deps, {
      channel: CHANNELS.extensionsChanged,
      id,
      context: { extensionId: id },
      failure: 'could not announce an extension change; other replicas pick it up at their periodic reload',
    });
  }
}

/** A 400 naming the problem when the module does not compile or exports neither hook. */
async function compileCheck(source: string, limits: SandboxLimits): Promise<void> {
  try {
    await (await ExtensionSandbox.create(source, limits, 1)).dispose();
  } catch (error) {
    if (!(error instanceof ExtensionCompileError)) throw error;
    throw new GatewayError('invalid_request', {
      param: 'source',
      message: `Extension source: ${error.message}.`,
    });
  }
}
