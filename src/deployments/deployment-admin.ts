import { announceChange } from '../admin-kit/announce-change.ts';
import { ResourceAdmin } from '../admin-kit/resource-admin.ts';
import type { CacheStore } from '../cache/cache-store.ts';
import { CHANNELS } from '../cache/channels.ts';
import type { Keyring } from '../crypto/index.ts';
import type { Logger } from '../diagnostics/logger.ts';
import type { Db } from '../store/database.ts';
import type { DeploymentRow } from './deployment.ts';
import type { DeploymentDirectory } from './deployment-directory.ts';
import { DeploymentRepository, type DeploymentUpdate } from './deployment-repository.ts';
import { type CatalogLookup, type ResolvedDeployment, resolveDeployment } from './deployment-resolver.ts';
import type { DeploymentCreateInput, DeploymentPatchInput } from './deployment-schemas.ts';

export interface DeploymentAdminDeps {
  db: Db;
  keyring: Keyring;
  /** Where changes are announced; `apply` holds them until its transaction commits. */
  cache: Pick<CacheStore, 'publish'>;
  /** Reloaded after each change, so this replica's next call sees it. */
  directory: Pick<DeploymentDirectory, 'load'>;
  catalog: CatalogLookup;
  logger: Logger;
}

/**
 * The rules of `/admin/deployments` (DESIGN.md section 5): every write is validated against the
 * provider (the same resolution `POST /admin/deployments/resolve` answers with), seals the
 * credential under the keyring's active id, and is announced to every replica before the caller
 * gets an answer.
 */
export class DeploymentAdmin extends ResourceAdmin<DeploymentRow> {
  readonly #repository: DeploymentRepository;
  readonly #deps: DeploymentAdminDeps;

  constructor(deps: DeploymentAdminDeps) {
    const repository = new DeploymentRepository(deps.db);
    super(repository);
    this.#deps = deps;
    this.#repository = repository;
  }

  resolve(input: DeploymentCreateInput, hasStoredKey = false): ResolvedDeployment {
    return resolveDeployment(input, this.#deps.catalog, hasStoredKey);
  }

  async create(input: DeploymentCreateInput): Promise<DeploymentRow> {
    this.resolve(input);
    const row = await this.#repository.insert({
      public_model: input.publicModel,
      provider: input.provider,
      upstream_model: input.upstreamModel,
      ...this.#credentialColumns(input.apiKey ?? null),
      base_url: input.baseUrl ?? null,
      enabled: input.enabled,
      weight: input.weight,
      rpm_limit: input.rpmLimit ?? null,
      tpm_limit: input.tpmLimit ?? null,
      pricing: input.pricing ?? null,
      profile: input.profile ?? null,
      provider_options: input.providerOptions,
    });
    await this.announce(row.id);
    return row;
  }

  /** Absent fields stay, `null` clears a nullable field, `apiKey` replaces the credential (sealed anew). */
  async update(id: string, patch: DeploymentPatchInput): Promise<DeploymentRow | undefined> {
    const row = await this.#repository.update(id, (current) => {
      const { providerOptions, ...fields } = definedFields(patch);
      this.resolve(
        {
          ...createInputOf(current),
          ...fields,
          providerOptions: providerOptions === undefined ? current.provider_options : (providerOptions ?? {}),
        } as DeploymentCreateInput,
        patch.apiKey === undefined && current.api_key_envelope !== null,
      );
      return this.#updateColumns(patch);
    });
    return this.changed(id, row);
  }

  #credentialColumns(apiKey: string | null): Pick<DeploymentRow, 'api_key_envelope' | 'api_key_key_id'> {
    if (apiKey === null) return { api_key_envelope: null, api_key_key_id: null };
    const { keyring } = this.#deps;
    return {
      api_key_envelope: keyring.seal('deployment-credential', apiKey),
      api_key_key_id: keyring.activeId,
    };
  }

  #updateColumns(patch: DeploymentPatchInput): DeploymentUpdate {
    const columns: DeploymentUpdate = {};
    if (patch.publicModel !== undefined) columns.public_model = patch.publicModel;
    if (patch.provider !== undefined) columns.provider = patch.provider;
    if (patch.upstreamModel !== undefined) columns.upstream_model = patch.upstreamModel;
    if (patch.apiKey !== undefined) Object.assign(columns, this.#credentialColumns(patch.apiKey));
    if (patch.baseUrl !== undefined) columns.base_url = patch.baseUrl;
    if (patch.enabled !== undefined) columns.enabled = patch.enabled;
    if (patch.weight !== undefined) columns.weight = patch.weight;
    if (patch.rpmLimit !== undefined) columns.rpm_limit = patch.rpmLimit;
    if (patch.tpmLimit !== undefined) columns.tpm_limit = patch.tpmLimit;
    if (patch.pricing !== undefined) columns.pricing = patch.pricing;
    if (patch.profile !== undefined) columns.profile = patch.profile;
    if (patch.providerOptions !== undefined) columns.provider_options = patch.providerOptions ?? {};
    return columns;
  }

  /**
   * Tells every replica to reload, and reloads this one before answering, so the next call on this
   * replica already sees the change. A failed publish is logged, not thrown: the write is
   * committed, and other replicas catch up at their periodic reload.
   */
  protected override async announce(id: string): Promise<void> {
    await announceChange(this.#deps, {
      channel: CHANNELS.deploymentsChanged,
      id,
      context: { deploymentId: id },
      failure: 'could not announce a deployment change; other replicas pick it up at their periodic reload',
    });
    await this.#deps.directory.load();
  }
}

/**
 * A stored row in the create body's shape, so a PATCH is validated as the deployment it yields;
 * the configuration file compares and exports rows in the same shape.
 */
export function createInputOf(row: DeploymentRow): DeploymentCreateInput {
  return {
    publicModel: row.public_model,
    provider: row.provider,
    upstreamModel: row.upstream_model,
    baseUrl: row.base_url,
    enabled: row.enabled,
    weight: row.weight,
    rpmLimit: row.rpm_limit,
    tpmLimit: row.tpm_limit,
    pricing: row.pricing as DeploymentCreateInput['pricing'],
    profile: row.profile as DeploymentCreateInput['profile'],
    providerOptions: row.provider_options,
  };
}

function definedFields<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
