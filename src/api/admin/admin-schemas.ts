import { z } from 'zod';

/** `:id` of every admin resource. */
export const idParamsSchema = z.object({
  id: z.string().min(1).max(128).meta({ description: 'The resource id (`dep_...`, `key_...`).' }),
});

export type IdParams = z.infer<typeof idParamsSchema>;

export const deletedSchema = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'Deleted' });
