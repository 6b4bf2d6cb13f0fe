import { z } from 'zod';
import { isoString } from '../admin-kit/iso-string.ts';
import { limitView, limitViewFields } from './limit-holder-fields.ts';
import type { VirtualKeyRow } from './virtual-key-row.ts';

/** A virtual key as the admin API shows it: never its secret (only `POST` answers with it, once) nor its hash. */
export const virtualKeyViewSchema = z
  .object({
    id: z.string().meta({ example: 'key_0m5x2k1a09f3c2b1a0e4d5c6' }),
    name: z.string(),
    ...limitViewFields,
    teamId: z.string().nullable().meta({ description: "The key's team; null without one." }),
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
    ...limitView(row, nowMs),
    teamId: row.team_id,
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
