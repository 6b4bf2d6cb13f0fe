/** The admin API's team inputs (DESIGN.md section 5, Governance). */
import { z } from 'zod';
import { limitCreateFields, limitPatchFields } from '../keys/limit-holder-fields.ts';
import { metadata, modelName, name } from '../keys/virtual-key-schemas.ts';

const allowedModels = z.array(modelName).max(10_000).meta({
  description:
    "Public model names the team's keys may call (`\"*\"`: all); a key's scope is the intersection of its own and its team's.",
});

export const teamCreateSchema = z
  .strictObject({
    name: name.default(''),
    allowedModels: allowedModels.default(['*']),
    ...limitCreateFields,
    metadata: metadata.default({}),
  })
  .meta({ id: 'TeamCreate' });

export type TeamCreateInput = z.infer<typeof teamCreateSchema>;

/** Absent = unchanged; `null` clears a limit, the budget or the period. */
export const teamPatchSchema = z
  .strictObject({
    name: name.optional(),
    allowedModels: allowedModels.optional(),
    ...limitPatchFields,
    metadata: metadata.nullable().optional(),
  })
  .meta({ id: 'TeamPatch' });

export type TeamPatchInput = z.infer<typeof teamPatchSchema>;

export const teamDeleteQuerySchema = z.strictObject({
  cascade: z.enum(['disable']).optional().meta({
    description: "`disable`: disable the team's keys and take them out of the team, then delete it.",
  }),
});

export type TeamDeleteQuery = z.infer<typeof teamDeleteQuerySchema>;
