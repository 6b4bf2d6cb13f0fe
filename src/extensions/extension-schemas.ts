/**
 * The admin API's extension inputs (DESIGN.md section 5, Extensions), also the schema of an
 * EXTENSIONS_DIR sidecar file (everything but `id` and `source`).
 */
import { z } from 'zod';
import { DEFAULT_EXTENSION_LIMITS } from './extension.ts';

/** An operator's slug: lower-case letters, digits and hyphens; also a file name in EXTENSIONS_DIR. */
export const EXTENSION_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Longest module accepted: far above a guardrail's size, small enough to keep in memory per replica. */
const MAX_SOURCE_CHARS = 512 * 1024;

/** Bounds of `limits`: isolated-vm's heap floor is 8 MB; a hook longer than 10 s holds a call far too long. */
const TIMEOUT_MS = { min: 1, max: 10_000 } as const;
const MEMORY_MB = { min: 8, max: 1024 } as const;

const limitsSchema = z
  .strictObject({
    timeoutMs: z.number().int().min(TIMEOUT_MS.min).max(TIMEOUT_MS.max).optional(),
    memoryMb: z.number().int().min(MEMORY_MB.min).max(MEMORY_MB.max).optional(),
  })
  .meta({
    id: 'ExtensionLimits',
    description: `Per hook call: CPU time in ms (default ${DEFAULT_EXTENSION_LIMITS.timeoutMs}) and the isolate's heap in MB (default ${DEFAULT_EXTENSION_LIMITS.memoryMb}).`,
  });

const modelsSchema = z
  .array(z.string().min(1).max(256))
  .min(1, 'list at least one model, or "*"')
  .max(1000)
  .meta({ description: 'Public models it applies to; `["*"]` (default) is every model.' });

const sourceSchema = z
  .string()
  .min(1, 'source must not be empty')
  .max(MAX_SOURCE_CHARS, 'source is too long')
  .meta({ description: 'An ES module exporting `beforeUpstream` and/or `afterUpstream`; no imports.' });

/** The settings an extension has besides its id and source: the sidecar JSON of EXTENSIONS_DIR. */
export const extensionSettingsSchema = z.strictObject({
  description: z.string().max(1000).default(''),
  critical: z.boolean().default(false),
  enabled: z.boolean().default(true),
  models: modelsSchema.default(['*']),
  config: z.unknown().optional().meta({ description: 'Any JSON, handed to each hook as `call.config`.' }),
  limits: limitsSchema.default({}),
});

export const extensionCreateSchema = extensionSettingsSchema
  .extend({
    id: z
      .string()
      .regex(EXTENSION_ID_PATTERN, 'id must be a slug: lower-case letters, digits and hyphens, at most 63')
      .meta({ description: 'Chosen by the operator, e.g. `pii-redactor`; extensions run in id order.' }),
    source: sourceSchema,
  })
  .meta({ id: 'ExtensionCreate' });

export type ExtensionCreateInput = z.infer<typeof extensionCreateSchema>;

/** Absent = unchanged; a new `source` is compiled first and resets the breaker. */
export const extensionPatchSchema = z
  .strictObject({
    description: z.string().max(1000).optional(),
    critical: z.boolean().optional(),
    enabled: z.boolean().optional(),
    models: modelsSchema.optional(),
    config: z.unknown().optional(),
    limits: limitsSchema.optional(),
    source: sourceSchema.optional(),
  })
  .meta({ id: 'ExtensionPatch' });

export type ExtensionPatchInput = z.infer<typeof extensionPatchSchema>;
