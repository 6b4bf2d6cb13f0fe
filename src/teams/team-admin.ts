import { announceChange } from '../admin-kit/announce-change.ts';
import { ResourceAdmin } from '../admin-kit/resource-admin.ts';
import type { CacheStore } from '../cache/cache-store.ts';
import { CHANNELS } from '../cache/channels.ts';
import type { Logger } from '../diagnostics/logger.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { CachedKeyResolver } from '../keys/cached-key-resolver.ts';
import { limitHolderColumns } from '../keys/limit-holder-fields.ts';
import type { TeamRow } from '../keys/virtual-key-row.ts';
import { startNewPeriod } from '../limits/spend-statement.ts';
import type { Db } from '../store/database.ts';
import { isForeignKeyViolation } from '../store/database-errors.ts';
import { TeamRepository } from './team-repository.ts';
import type { TeamCreateInput, TeamDeleteQuery, TeamPatchInput } from './team-schemas.ts';

export interface TeamAdminDeps {
  db: Db;
  /** Where changes are announced; `apply` holds them until its transaction commits. */
  cache: Pick<CacheStore, 'publish'>;
  resolver: Pick<CachedKeyResolver, 'forget'>;
  logger: Logger;
  /** The clock reset-spend starts a period at; Date.now by default. */
  now?(): number;
}

/**
 * The rules of `/admin/teams` (DESIGN.md section 5, Governance). A team's scope and limits are
 * part of each of its keys as the hot path caches them, so every change drops the key cache of
 * every replica, as a key change does.
 */
export class TeamAdmin extends ResourceAdmin<TeamRow> {
  readonly #repository: TeamRepository;
  readonly #deps: TeamAdminDeps;

  constructor(deps: TeamAdminDeps) {
    const repository = new TeamRepository(deps.db);
    super(repository);
    this.#deps = deps;
    this.#repository = repository;
  }

  create(input: TeamCreateInput): Promise<TeamRow> {
    return this.#repository.insert({
      name: input.name,
      allowed_models: input.allowedModels,
      rpm_limit: input.rpmLimit ?? null,
      tpm_limit: input.tpmLimit ?? null,
      budget_cents: input.budgetCents ?? null,
      budget_period: input.budgetPeriod ?? null,
      metadata: input.metadata,
    });
  }

  async update(id: string, patch: TeamPatchInput): Promise<TeamRow | undefined> {
    return this.changed(id, await this.#repository.update(id, limitHolderColumns(patch)));
  }

  /**
   * Refused with 409 while keys belong to the team, unless `cascade=disable`: then its keys are
   * disabled and leave it, and it is deleted, in one transaction.
   */
  override async delete(id: string, query: TeamDeleteQuery = {}): Promise<boolean> {
    if (query.cascade === 'disable') {
      const { deleted, keyIds } = await this.#repository.deleteDisablingKeys(id);
      if (deleted || keyIds.length > 0) await this.announce(id);
      return deleted;
    }
    try {
      return await super.delete(id);
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error;
      throw new GatewayError('team_has_keys', {
        param: 'cascade',
        message: `Team '${id}' still has keys: move or delete them first, or delete with ?cascade=disable, which disables them.`,
      });
    }
  }

  /** The clock budget periods are read on: reset-spend starts one at its now, views show the one in force. */
  now(): number {
    return this.#deps.now?.() ?? Date.now();
  }

  /** Starts a new budget period now (reset-spend). Undefined when there is no such team. */
  async resetSpend(id: string): Promise<TeamRow | undefined> {
    const at = new Date(this.now());
    if (!(await startNewPeriod(this.#deps.db, 'teams', id, at))) return undefined;
    await this.announce(id);
    return this.get(id);
  }

  protected override async announce(id: string): Promise<void> {
    this.#deps.resolver.forget(id);
    await announceChange(this.#deps, {
      channel: CHANNELS.keysChanged,
      id,
      context: { teamId: id },
      failure: 'could not announce a team change; other replicas see it when their key cache entries expire',
    });
  }
}
