import type { SandboxLimits } from './extension-sandbox.ts';

/** Where an extension's module came from: the database (variant B, `/admin/extensions`) or EXTENSIONS_DIR. */
export type ExtensionOrigin = 'database' | 'directory';

/** An extension as configured (DESIGN.md section 5, Extensions), its source in the clear. */
export interface ExtensionDefinition {
  /** The operator's slug, e.g. `pii-redactor`; extensions run in id order. */
  id: string;
  description: string;
  /** A tripped critical extension refuses the calls it applies to; a non-critical one is skipped. */
  critical: boolean;
  enabled: boolean;
  /** Public models it applies to; `*` matches every model. */
  models: readonly string[];
  /** An ES module exporting `beforeUpstream` and/or `afterUpstream`. */
  source: string;
  /** Handed to each hook as `call.config`. */
  config: unknown;
  limits: SandboxLimits;
  origin: ExtensionOrigin;
  /** The name a configuration file gives it (docs/configuration.md); null: not managed by one. */
  configName: string | null;
}

/** The breaker's states (SPEC.md, States and transitions: Extension). */
export type ExtensionState = 'active' | 'tripped' | 'skipped';

/** Limits an extension gets when its settings name none. */
export const DEFAULT_EXTENSION_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  /** Generous for a regex pass over a large prompt, short enough that a loop costs one call little. */
  timeoutMs: 50,
  /** isolated-vm's floor is 8; 32 leaves room for a copy of a large body and its JSON text. */
  memoryMb: 32,
});

/** `models` contains the call's public model, or `*`. */
export function appliesTo(definition: Pick<ExtensionDefinition, 'models'>, publicModel: string): boolean {
  return definition.models.includes('*') || definition.models.includes(publicModel);
}
