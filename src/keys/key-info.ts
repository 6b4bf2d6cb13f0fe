import type { BudgetPeriod } from '../limits/budget-period.ts';
import { exactCents } from '../limits/exact-cents.ts';
import { keyScope } from '../limits/limit-keys.ts';
import { readSpendReport, type SettledSpendDeps } from '../limits/settled-spend.ts';
import type { Db } from '../store/database.ts';
import { VirtualKeyRepository } from './virtual-key-repository.ts';
import { limitHolderFromRow } from './virtual-key-row.ts';
import { virtualKeyView } from './virtual-key-view.ts';

/**
 * What `GET /v1/key` tells a virtual key about itself (DESIGN.md section 5, Governance): never its
 * secret, and only its own row (its team's id, never the team's data).
 */
export interface KeyInfo {
  id: string;
  name: string;
  teamId: string | null;
  allowedModels: string[];
  tags: string[];
  rpmLimit: number | null;
  tpmLimit: number | null;
  budgetCents: number | null;
  budgetPeriod: BudgetPeriod | null;
  spendCents: number;
  periodSpendCents: number;
  /** Budget minus the period's spend, never below 0 (a key may end one call's worst case over); null without a budget. */
  remainingCents: number | null;
  budgetResetsAt: string | null;
  expiresAt: string | null;
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
    const scope = keyScope({ id: row.id, team: row.team_id === null ? null : { id: row.team_id } });
    const spend = await readSpendReport(this.#deps, scope, limitHolderFromRow(row), row);
    return {
      id: view.id,
      name: view.name,
      teamId: view.teamId,
      allowedModels: view.allowedModels,
      tags: view.tags,
      rpmLimit: view.rpmLimit,
      tpmLimit: view.tpmLimit,
      budgetCents: view.budgetCents,
      budgetPeriod: view.budgetPeriod,
      spendCents: spend.spendCents,
      periodSpendCents: spend.periodSpendCents,
      remainingCents:
        view.budgetCents === null ? null : exactCents(view.budgetCents - spend.periodSpendCents),
      budgetResetsAt: spend.budgetResetsAt,
      expiresAt: view.expiresAt,
    };
  }
}
