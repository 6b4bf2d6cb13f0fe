import type { Selectable } from 'kysely';
import type { LimitHolder, VirtualKey } from '../auth/principal.ts';
import { NO_TAGS } from '../pipeline/call-tags.ts';
import type { TeamsTable, VirtualKeysTable } from '../store/tables.ts';

export type VirtualKeyRow = Selectable<VirtualKeysTable>;
export type TeamRow = Selectable<TeamsTable>;

/** The limits of a key or team row as the hot path reads them. */
export function limitHolderFromRow(row: VirtualKeyRow | TeamRow): LimitHolder {
  return {
    id: row.id,
    allowedModels: row.allowed_models,
    rpmLimit: row.rpm_limit,
    tpmLimit: row.tpm_limit,
    budgetCents: row.budget_cents === null ? null : Number(row.budget_cents),
    budgetPeriod: row.budget_period,
    budgetResetAtMs: row.budget_reset_at === null ? null : new Date(row.budget_reset_at).getTime(),
  };
}

/** The hot path's view of a stored key and its team's row (undefined when it has none). */
export function virtualKeyFromRow(row: VirtualKeyRow, team?: TeamRow): VirtualKey {
  return {
    ...limitHolderFromRow(row),
    name: row.name,
    spendCents: Number(row.spend_cents),
    enabled: row.enabled,
    expiresAt: row.expires_at,
    tags: row.tags.length === 0 ? NO_TAGS : row.tags,
    team: team === undefined ? null : limitHolderFromRow(team),
  };
}
