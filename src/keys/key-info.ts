import { exactCents } from '../limits/exact-cents.ts';
import { type SettledSpendDeps, settledSpendCents } from '../limits/settled-spend.ts';
import type { Db } from '../store/database.ts';
import { VirtualKeyRepository } from './virtual-key-repository.ts';
import { virtualKeyView } from './virtual-key-view.ts';

/**
 * What `GET /v1/key` tells a virtual key about itself (DESIGN.md section 5, Governance): never its
 * secret, and only its own row. Teams and budget periods do not exist yet: `teamId`,
 * `budgetPeriod` and `budgetResetsAt` are null.
 */
export interface KeyInfo {
  id: string;
  name: string;
  teamId: null;
  allowedModels: string[];
  tags: string[];
  rpmLimit: number | null;
  tpmLimit: number | null;
  budgetCents: number | null;
  budgetPeriod: null;
  spendCents: number;
  /** Budget minus spend, never below 0 (a key may end one call's worst case over); null without a budget. */
  remainingCents: number | null;
  budgetResetsAt: null;
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
    const spendCents = await settledSpendCents(this.#deps, view, view.spendCents);
    return {
      id: view.id,
      name: view.name,
      teamId: null,
      allowedModels: view.allowedModels,
      tags: view.tags,
      rpmLimit: view.rpmLimit,
      tpmLimit: view.tpmLimit,
      budgetCents: view.budgetCents,
      budgetPeriod: null,
      spendCents,
      remainingCents: view.budgetCents === null ? null : exactCents(view.budgetCents - spendCents),
      budgetResetsAt: null,
      expiresAt: view.expiresAt,
    };
  }
}
