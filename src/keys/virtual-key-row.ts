import type { Selectable } from 'kysely';
import type { VirtualKey } from '../auth/principal.ts';
import { NO_TAGS } from '../pipeline/call-tags.ts';
import type { VirtualKeysTable } from '../store/tables.ts';

export type VirtualKeyRow = Selectable<VirtualKeysTable>;

/** The hot path's view of a stored key. */
export function virtualKeyFromRow(row: VirtualKeyRow): VirtualKey {
  return {
    id: row.id,
    name: row.name,
    allowedModels: row.allowed_models,
    rpmLimit: row.rpm_limit,
    tpmLimit: row.tpm_limit,
    budgetCents: row.budget_cents === null ? null : Number(row.budget_cents),
    spendCents: Number(row.spend_cents),
    enabled: row.enabled,
    expiresAt: row.expires_at,
    tags: row.tags.length === 0 ? NO_TAGS : row.tags,
  };
}
