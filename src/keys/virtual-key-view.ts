import { z } from 'zod';
import { isoString } from '../api/admin/iso-string.ts';
import { BUDGET_PERIODS } from '../limits/budget-period.ts';
import { storedSpendView } from '../limits/stored-spend-view.ts';
import { limitHolderFromRow, type VirtualKeyRow } from './virtual-key-row.ts';

/** A virtual key as the admin API shows it: never its secret (only `POST` answers with it, once) nor its hash. */
export const virtualKeyViewSchema = z
  .object({
    id: z.string().meta({ example: 'key_0m5x2k1a09f3c2b1a0e4d5c6' }),
    name: z.string(),
    allowedModels: z.array(z.string()),
    rpmLimit: z.number().int().nullable(),
    tpmLimit: z.number().int().nullable(),
    budgetCents: z.number().nullable(),
    budgetPeriod: z.enum(BUDGET_PERIODS).nullable().meta({
      description: 'Calendar period of the budget in UTC; null: a lifetime budget.',
    }),
    teamId: z.string().nullable().meta({ description: "The key's team; null without one." }),
    spendCents: z.number().meta({ description: 'Cumulative billed spend (read-only).' }),
    periodSpendCents: z.number().meta({
      description:
        'Spend in the budget period under way, since the last reset-spend (read-only); for a lifetime budget never reset, `spendCents`.',
    }),
    budgetResetsAt: z.string().nullable().meta({
      description:
        'When the budget period ends and the period spend starts again from 0 (read-only); null for a lifetime budget.',
    }),
    enabled: z.boolean(),
    expiresAt: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    tags: z.array(z.string()).meta({ description: "Default tags of the key's calls." }),
    previousKeyExpiresAt: z.string().nullable().meta({
      description:
        'After a rotation with a grace period: until when the replaced secret is still accepted; null otherwise.',
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'VirtualKey' });

export const issuedVirtualKeySchema = virtualKeyViewSchema
  .extend({
    key: z.string().meta({
      description: 'The secret (`sk-sy-...`). Shown only in this answer; the gateway keeps its SHA-256.',
    }),
  })
  .meta({ id: 'IssuedVirtualKey' });

export type VirtualKeyView = z.infer<typeof virtualKeyViewSchema>;

/** `nowMs`: the instant whose budget period the spends are shown in. */
export function virtualKeyView(row: VirtualKeyRow, nowMs = Date.now()): VirtualKeyView {
  return {
    id: row.id,
    name: row.name,
    allowedModels: row.allowed_models,
    rpmLimit: row.rpm_limit,
    tpmLimit: row.tpm_limit,
    budgetCents: row.budget_cents === null ? null : Number(row.budget_cents),
    budgetPeriod: row.budget_period,
    teamId: row.team_id,
    ...storedSpendView(limitHolderFromRow(row), row, nowMs),
    enabled: row.enabled,
    expiresAt: row.expires_at === null ? null : isoString(row.expires_at),
    metadata: row.metadata,
    tags: row.tags,
    previousKeyExpiresAt: graceEnd(row),
    createdAt: isoString(row.created_at),
    updatedAt: isoString(row.updated_at),
  };
}

/** The end of a replaced secret's grace period while it lasts. */
function graceEnd(row: VirtualKeyRow): string | null {
  const until = row.previous_key_expires_at;
  return until === null || new Date(until).getTime() <= Date.now() ? null : isoString(until);
}
