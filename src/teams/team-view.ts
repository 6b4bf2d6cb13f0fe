import { z } from 'zod';
import { isoString } from '../api/admin/iso-string.ts';
import { limitHolderFromRow, type TeamRow } from '../keys/virtual-key-row.ts';
import { BUDGET_PERIODS } from '../limits/budget-period.ts';
import { storedSpendView } from '../limits/stored-spend-view.ts';

/** A team as the admin API shows it. */
export const teamViewSchema = z
  .object({
    id: z.string().meta({ example: 'team_0m5x2k1a09f3c2b1a0e4d5c6' }),
    name: z.string(),
    allowedModels: z.array(z.string()),
    rpmLimit: z.number().int().nullable(),
    tpmLimit: z.number().int().nullable(),
    budgetCents: z.number().nullable(),
    budgetPeriod: z.enum(BUDGET_PERIODS).nullable(),
    spendCents: z.number().meta({ description: "Cumulative billed spend of the team's keys (read-only)." }),
    periodSpendCents: z.number().meta({
      description: 'Spend in the budget period under way, since the last reset-spend (read-only).',
    }),
    budgetResetsAt: z.string().nullable().meta({
      description: 'When the budget period ends (read-only); null for a lifetime budget.',
    }),
    metadata: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Team' });

export type TeamView = z.infer<typeof teamViewSchema>;

/** `nowMs`: the instant whose budget period the spends are shown in. */
export function teamView(row: TeamRow, nowMs = Date.now()): TeamView {
  return {
    id: row.id,
    name: row.name,
    allowedModels: row.allowed_models,
    rpmLimit: row.rpm_limit,
    tpmLimit: row.tpm_limit,
    budgetCents: row.budget_cents === null ? null : Number(row.budget_cents),
    budgetPeriod: row.budget_period,
    ...storedSpendView(limitHolderFromRow(row), row, nowMs),
    metadata: row.metadata,
    createdAt: isoString(row.created_at),
    updatedAt: isoString(row.updated_at),
  };
}
