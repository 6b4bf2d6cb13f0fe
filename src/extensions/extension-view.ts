import { z } from 'zod';
import type { ExtensionStatus } from './extension-runtime.ts';
import { HOOKS } from './extension-sandbox.ts';

/**
 * An extension as the admin API shows it: its settings, its source, and its breaker on the
 * replica that answers (`state`, the consecutive failures, the last failure's reason: never the
 * content of a call).
 */
export const extensionViewSchema = z
  .object({
    id: z.string().meta({ example: 'pii-redactor' }),
    description: z.string(),
    critical: z.boolean(),
    enabled: z.boolean(),
    models: z.array(z.string()),
    source: z.string(),
    config: z.unknown(),
    limits: z.object({ timeoutMs: z.number().int(), memoryMb: z.number().int() }),
    hooks: z.array(z.enum(HOOKS)).meta({ description: 'The hooks the module exports.' }),
    origin: z
      .enum(['database', 'directory'])
      .meta({ description: '`directory`: loaded from EXTENSIONS_DIR, read-only here.' }),
    state: z.enum(['active', 'tripped', 'skipped']),
    consecutiveFailures: z.number().int(),
    lastFailure: z.object({ reason: z.string(), at: z.string() }).nullable().meta({
      description: 'Why the last failed hook call failed (throw, timeout, memory limit, malformed result).',
    }),
  })
  .meta({ id: 'Extension' });

export type ExtensionView = z.infer<typeof extensionViewSchema>;

export function extensionView(status: ExtensionStatus): ExtensionView {
  const { definition } = status;
  return {
    id: definition.id,
    description: definition.description,
    critical: definition.critical,
    enabled: definition.enabled,
    models: [...definition.models],
    source: definition.source,
    config: definition.config,
    limits: { timeoutMs: definition.limits.timeoutMs, memoryMb: definition.limits.memoryMb },
    hooks: [...status.hooks],
    origin: definition.origin,
    state: status.state,
    consecutiveFailures: status.consecutiveFailures,
    lastFailure: status.lastFailure,
  };
}
