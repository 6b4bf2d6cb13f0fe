import { z } from 'zod';
import { isoString } from '../admin-kit/iso-string.ts';
import { limitView, limitViewFields } from '../keys/limit-holder-fields.ts';
import type { TeamRow } from '../keys/virtual-key-row.ts';

/** A team as the admin API shows it. */
export const teamViewSchema = z
  .object({
    id: z.string().meta({ example: 'team_0m5x2k1a09f3c2b1a0e4d5c6' }),
    name: z.string(),
    ...limitViewFields,
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
    ...limitView(row, nowMs),
    metadata: row.metadata,
    createdAt: isoString(row.created_at),
    updatedAt: isoString(row.updated_at),
  };
}
