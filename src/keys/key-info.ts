import { modelsInForce } from '../auth/principal.ts';
import type { BudgetPeriod } from '../limits/budget-period.ts';
import { exactCents } from '../limits/exact-cents.ts';
import { keyScope, type LimitScope, teamScope } from '../limits/limit-keys.ts';
import { readSpendReport, type SettledSpendDeps } from '../limits/settled-spend.ts';
import type { Db } from '../store/database.ts';
import { findKeyTeam, VirtualKeyRepository } from './virtual-key-repository.ts';
import { limitHolderFromRow, type TeamRow, type VirtualKeyRow } from './virtual-key-row.ts';
import { virtualKeyView } from './virtual-key-view.ts';

/** The limits, budget and spend a key and its team each have, as `GET /v1/key` shows them. */
export interface HolderLimits {
  rpmLimit: number | null;
  tpmLimit: number | null;
  budgetCents: number | null;
  budgetPeriod: BudgetPeriod | null;
  spendCents: number;
  periodSpendCents: number;
  /** Budget minus the period's spend, never below 0 (a key may end one call's worst case over); null without a budget. */
  remainingCents: number | null;
  budgetResetsAt: string | null;
}

/**
 * What `GET /v1/key` tells a virtual key about itself (DESIGN.md section 5, Governance): never its
 * secret, never another key; for a key in a team, the scope in force (the intersection of both)
 * and the team's limits, budget and spend, so a key holder sees why a call is refused.
 */
export interface KeyInfo extends HolderLimits {
  id: string;
  name: string;
  teamId: string | null;
  allowedModels: string[];
  tags: string[];
  expiresAt: string | null;
  /** The key's team; null without one. */
  team: ({ id: string; name: string } & HolderLimits) | null;
}

export interface KeyInfoDeps extends SettledSpendDeps {
  db: Db;
}

/** Reads a key's own info fresh from the database, with its spend as every replica settled it. */
export class KeyInfoReader {
  readonly #repository: VirtualKeyRepository;
  readonly #deps: KeyInfoDeps;

  constructor(deps: KeyInfoDeps) {
    this.#deps = deps;
    this.#repository = new VirtualKeyRepository(deps.db);
  }

  /** Undefined when the key no longer exists. */
  async read(keyId: string): Promise<KeyInfo | undefined> {
    const row = await this.#repository.find(keyId);
    if (row === undefined) return undefined;
    const view = virtualKeyView(row);
    const teamRow = row.team_id === null ? undefined : await findKeyTeam(this.#deps.db, row.team_id);
    const scope = keyScope({ id: row.id, team: teamRow === undefined ? null : { id: teamRow.id } });
    const [own, team] = await Promise.all([
      this.#limitsOf(scope, row),
      teamRow === undefined ? null : this.#limitsOf(teamScope(teamRow.id), teamRow),
    ]);
    return {
      id: view.id,
      name: view.name,
      teamId: view.teamId,
      allowedModels: [...modelsInForce(view.allowedModels, teamRow?.allowed_models ?? null)],
      tags: view.tags,
      ...own,
      expiresAt: view.expiresAt,
      team: teamRow === undefined || team === null ? null : { id: teamRow.id, name: teamRow.name, ...team },
    };
  }

  async #limitsOf(scope: LimitScope, row: VirtualKeyRow | TeamRow): Promise<HolderLimits> {
    const holder = limitHolderFromRow(row);
    const spend = await readSpendReport(this.#deps, scope, holder, row);
    return {
      rpmLimit: holder.rpmLimit,
      tpmLimit: holder.tpmLimit,
      budgetCents: holder.budgetCents,
      budgetPeriod: holder.budgetPeriod,
      spendCents: spend.spendCents,
      periodSpendCents: spend.periodSpendCents,
      remainingCents:
        holder.budgetCents === null
          ? null
          : exactCents(Math.max(0, holder.budgetCents - spend.periodSpendCents)),
      budgetResetsAt: spend.budgetResetsAt,
    };
  }
}
