/** The admin API's virtual key inputs (DESIGN.md section 5, Virtual key). */
import { z } from 'zod';
import { tagListSchema as tags } from '../pipeline/call-tags.ts';
import { storableDateTime } from '../store/storable-date-time.ts';
import { limitCreateFields, limitPatchFields } from './limit-holder-fields.ts';

export const modelName = z.string().trim().min(1, 'model names must not be empty').max(256);

const allowedModels = z
  .array(modelName)
  .max(10_000)
  .meta({ description: 'Public model names this key may call; `"*"` allows every model.' });

const teamId = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: "The key's team (`team_...`): its scope and limits apply too; it must exist." });
const expiresAt = storableDateTime().meta({ description: 'After this instant the key is refused with 401.' });
export const metadata = z.record(z.string(), z.unknown()).meta({ description: 'Free-form JSON object.' });
export const name = z.string().trim().max(256, 'name is too long');

export const virtualKeyCreateSchema = z
  .strictObject({
    name: name.default(''),
    allowedModels,
    ...limitCreateFields,
    teamId: teamId.nullish(),
    enabled: z.boolean().default(true),
    expiresAt: expiresAt.nullish(),
    metadata: metadata.default({}),
    tags: tags.default([]),
  })
  .meta({ id: 'VirtualKeyCreate' });

export type VirtualKeyCreateInput = z.infer<typeof virtualKeyCreateSchema>;

/** Absent = unchanged; `null` clears a limit, the budget or the expiry. */
export const virtualKeyPatchSchema = z
  .strictObject({
    name: name.optional(),
    allowedModels: allowedModels.optional(),
    ...limitPatchFields,
    teamId: teamId.nullable().optional(),
    enabled: z.boolean().optional(),
    expiresAt: expiresAt.nullable().optional(),
    metadata: metadata.nullable().optional(),
    tags: tags.optional(),
  })
  .meta({ id: 'VirtualKeyPatch' });

export type VirtualKeyPatchInput = z.infer<typeof virtualKeyPatchSchema>;

/** Thirty days: a grace period longer than that is a second key, not a rotation. */
export const MAX_GRACE_PERIOD_SECONDS = 30 * 24 * 3600;

export const virtualKeyRotateSchema = z
  .strictObject({
    gracePeriodSeconds: z
      .number()
      .int('expected an integer number of seconds')
      .min(0, 'expected seconds >= 0')
      .max(MAX_GRACE_PERIOD_SECONDS, `expected at most ${MAX_GRACE_PERIOD_SECONDS} seconds (30 days)`)
      .default(0)
      .meta({
        description:
          'How long the replaced secret stays valid, on every replica (0: refused at once). A later rotation ends it at once.',
      }),
  })
  .meta({ id: 'VirtualKeyRotate' });

export type VirtualKeyRotateInput = z.infer<typeof virtualKeyRotateSchema>;
