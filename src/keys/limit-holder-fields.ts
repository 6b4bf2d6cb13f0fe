/**
 * What keys and teams share in the admin API (DESIGN.md section 5, Governance): rate limits, a
 * budget with its period and read-only spends, and how a body's fields become columns.
 */
import type { Updateable } from 'kysely';
import { z } from 'zod';
import { rateLimitSchema as limit } from '../deployments/rate-limit-schema.ts';
import { BUDGET_PERIODS } from '../limits/budget-period.ts';
import { storedSpendView } from '../limits/stored-spend-view.ts';
import type { VirtualKeysTable } from '../store/tables.ts';
import { limitHolderFromRow, type TeamRow, type VirtualKeyRow } from './virtual-key-row.ts';

const budgetCents = z.number().finite().nonnegative('expected a number of cents >= 0');
const budgetPeriod = z
  .enum(BUDGET_PERIODS, {
    error: `expected one of ${BUDGET_PERIODS.join(', ')}, or null (a lifetime budget)`,
  })
  .meta({ description: 'Calendar period of the budget in UTC (`null`: a lifetime budget).' });
/** Spend is the gateway's to keep: a body carrying it is refused rather than silently ignored. */
const spendCents = z
  .never({ error: 'spendCents is read-only' })
  .optional()
  .meta({ description: 'Read-only.' });

export const limitCreateFields = {
  rpmLimit: limit.nullish(),
  tpmLimit: limit.nullish(),
  budgetCents: budgetCents.nullish(),
  budgetPeriod: budgetPeriod.nullish(),
  spendCents,
};

/** Absent = unchanged; `null` clears a limit, the budget or its period. */
export const limitPatchFields = {
  rpmLimit: limit.nullable().optional(),
  tpmLimit: limit.nullable().optional(),
  budgetCents: budgetCents.nullable().optional(),
  budgetPeriod: budgetPeriod.nullable().optional(),
  spendCents,
};

/** The fields of a key's or team's patch that both have. */
export interface LimitHolderPatch {
  name?: string;
  allowedModels?: string[];
  rpmLimit?: number | null;
  tpmLimit?: number | null;
  budgetCents?: number | null;
  budgetPeriod?: (typeof BUDGET_PERIODS)[number] | null;
  metadata?: Record<string, unknown> | null;
}

/** The same columns, of the same types, in both tables. */
type SharedColumns = Pick<
  Updateable<VirtualKeysTable>,
  'name' | 'allowed_models' | 'rpm_limit' | 'tpm_limit' | 'budget_cents' | 'budget_period' | 'metadata'
>;

/** The columns a patch changes among those keys and teams share. */
export function limitHolderColumns(patch: LimitHolderPatch): SharedColumns {
  const columns: SharedColumns = {};
  if (patch.name !== undefined) columns.name = patch.name;
  if (patch.allowedModels !== undefined) columns.allowed_models = patch.allowedModels;
  if (patch.rpmLimit !== undefined) columns.rpm_limit = patch.rpmLimit;
  if (patch.tpmLimit !== undefined) columns.tpm_limit = patch.tpmLimit;
  if (patch.budgetCents !== undefined) columns.budget_cents = patch.budgetCents;
  if (patch.budgetPeriod !== undefined) columns.budget_period = patch.budgetPeriod;
  if (patch.metadata !== undefined) columns.metadata = patch.metadata ?? {};
  return columns;
}

/** The view fields of a key or team's limits, budget and spends. */
export const limitViewFields = {
  allowedModels: z.array(z.string()),
  rpmLimit: z.number().int().nullable(),
  tpmLimit: z.number().int().nullable(),
  budgetCents: z.number().nullable(),
  budgetPeriod: z.enum(BUDGET_PERIODS).nullable().meta({
    description: 'Calendar period of the budget in UTC; null: a lifetime budget.',
  }),
  spendCents: z.number().meta({ description: 'Cumulative billed spend (read-only).' }),
  periodSpendCents: z.number().meta({
    description:
      'Spend in the budget period under way, since the last reset-spend (read-only); for a lifetime budget never reset, `spendCents`.',
  }),
  budgetResetsAt: z.string().nullable().meta({
    description:
      'When the budget period ends and the period spend starts again from 0 (read-only); null for a lifetime budget.',
  }),
};

/** `nowMs`: the instant whose budget period the spends are shown in. */
export function limitView(row: VirtualKeyRow | TeamRow, nowMs: number) {
  return {
    allowedModels: row.allowed_models,
    rpmLimit: row.rpm_limit,
    tpmLimit: row.tpm_limit,
    budgetCents: row.budget_cents === null ? null : Number(row.budget_cents),
    budgetPeriod: row.budget_period,
    ...storedSpendView(limitHolderFromRow(row), row, nowMs),
  };
}
