import { announceChange } from '../admin-kit/announce-change.ts';
import { ResourceAdmin } from '../admin-kit/resource-admin.ts';
import { hashKeySecret } from '../auth/key-hash.ts';
import type { CacheStore } from '../cache/cache-store.ts';
import { CHANNELS } from '../cache/channels.ts';
import type { Logger } from '../diagnostics/logger.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { startNewPeriod } from '../limits/spend-statement.ts';
import type { Db } from '../store/database.ts';
import { isForeignKeyViolation } from '../store/database-errors.ts';
import type { CachedKeyResolver } from './cached-key-resolver.ts';
import { generateKeySecret } from './key-secret.ts';
import { limitHolderColumns } from './limit-holder-fields.ts';
import { VirtualKeyRepository, type VirtualKeyUpdate } from './virtual-key-repository.ts';
import type { VirtualKeyRow } from './virtual-key-row.ts';
import type {
  VirtualKeyCreateInput,
  VirtualKeyPatchInput,
  VirtualKeyRotateInput,
} from './virtual-key-schemas.ts';

export interface VirtualKeyAdminDeps {
  db: Db;
  /** Where changes are announced; `apply` holds them until its transaction commits. */
  cache: Pick<CacheStore, 'publish'>;
  resolver: Pick<CachedKeyResolver, 'forget'>;
  logger: Logger;
  /** The clock reset-spend starts a period at; Date.now by default. */
  now?(): number;
}

/**
 * The rules of `/admin/keys` (DESIGN.md section 5): the secret is made here and shown once, only
 * its SHA-256 is stored, and every change drops the key cache of every replica (this one
 * synchronously, before the answer, so a disabled key is refused by the very next call).
 */
export class VirtualKeyAdmin extends ResourceAdmin<VirtualKeyRow> {
  readonly #repository: VirtualKeyRepository;
  readonly #deps: VirtualKeyAdminDeps;

  constructor(deps: VirtualKeyAdminDeps) {
    const repository = new VirtualKeyRepository(deps.db);
    super(repository);
    this.#deps = deps;
    this.#repository = repository;
  }

  /**
   * Returns the stored row and the secret, which nothing keeps. `secret`: a pre-shared one (a
   * configuration file's, by reference); by default one is generated.
   */
  async create(
    input: VirtualKeyCreateInput,
    secret = generateKeySecret(),
  ): Promise<{ row: VirtualKeyRow; secret: string }> {
    const row = await withTeamChecked(input.teamId, () =>
      this.#repository.insert({
        name: input.name,
        key_hash: hashKeySecret(secret),
        allowed_models: input.allowedModels,
        rpm_limit: input.rpmLimit ?? null,
        tpm_limit: input.tpmLimit ?? null,
        budget_cents: input.budgetCents ?? null,
        enabled: input.enabled,
        expires_at: input.expiresAt ?? null,
        metadata: input.metadata,
        tags: input.tags,
        budget_period: input.budgetPeriod ?? null,
        team_id: input.teamId ?? null,
      }),
    );
    // A new key may have been tried (and remembered as unknown) before it existed.
    await this.announce(row.id);
    return { row, secret };
  }

  /** Absent fields stay; `null` clears a limit, the budget or the expiry. Undefined when there is no such key. */
  async update(id: string, patch: VirtualKeyPatchInput): Promise<VirtualKeyRow | undefined> {
    const row = await withTeamChecked(patch.teamId, () => this.#repository.update(id, updateColumns(patch)));
    return this.changed(id, row);
  }

  /** The clock budget periods are read on: reset-spend starts one at its now, views show the one in force. */
  now(): number {
    return this.#deps.now?.() ?? Date.now();
  }

  /** Starts a new budget period now (reset-spend). Undefined when there is no such key. */
  async resetSpend(id: string): Promise<VirtualKeyRow | undefined> {
    const at = new Date(this.now());
    if (!(await startNewPeriod(this.#deps.db, 'virtual_keys', id, at))) return undefined;
    await this.announce(id);
    return this.get(id);
  }

  /**
   * A new secret for the key, shown once. The replaced one stays valid for the grace period on
   * every replica (their cache entries end with it, cached-key-resolver.ts); with none it is
   * refused from the next call on. Undefined when there is no such key.
   */
  async rotate(
    id: string,
    input: VirtualKeyRotateInput,
    secret = generateKeySecret(),
  ): Promise<{ row: VirtualKeyRow; secret: string } | undefined> {
    const graceMs = input.gracePeriodSeconds * 1000;
    const previousUntil = graceMs === 0 ? null : new Date(Date.now() + graceMs);
    const row = await this.#repository.rotate(id, hashKeySecret(secret), previousUntil);
    if (row === undefined) return undefined;
    await this.announce(id);
    return { row, secret };
  }

  /**
   * Drops this replica's entries of the key at once, then tells the others. A failed publish is logged, not
   * thrown: the change is committed, and other replicas' entries expire within KEY_CACHE_TTL_MS.
   */
  protected override async announce(id: string): Promise<void> {
    this.#deps.resolver.forget(id);
    await announceChange(this.#deps, {
      channel: CHANNELS.keysChanged,
      id,
      context: { keyId: id },
      failure:
        'could not announce a virtual key change; other replicas see it when their cache entries expire',
    });
  }
}

function updateColumns(patch: VirtualKeyPatchInput): VirtualKeyUpdate {
  const columns: VirtualKeyUpdate = limitHolderColumns(patch);
  if (patch.teamId !== undefined) columns.team_id = patch.teamId;
  if (patch.enabled !== undefined) columns.enabled = patch.enabled;
  if (patch.expiresAt !== undefined) columns.expires_at = patch.expiresAt;
  if (patch.tags !== undefined) columns.tags = patch.tags;
  return columns;
}

/** A write naming a team that does not exist is the client's error: 400 naming `teamId`. */
async function withTeamChecked<T>(teamId: string | null | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (teamId == null || !isForeignKeyViolation(error)) throw error;
    throw new GatewayError('invalid_request', { param: 'teamId', message: `No team with id '${teamId}'.` });
  }
}
