/**
 * The fields of each object as the configuration file writes them, read from a stored row (for
 * `export`, and for comparing with the file) or from a file entry. Absent and `null` are one value
 * (`null`), so a field removed from the file clears it, as `null` does in a PATCH.
 */
import type { DeploymentRow } from '../deployments/deployment.ts';
import { createInputOf } from '../deployments/deployment-admin.ts';
import { definitionOf } from '../extensions/database-extensions.ts';
import { DEFAULT_EXTENSION_LIMITS, type ExtensionDefinition } from '../extensions/extension.ts';
import type { ExtensionRow } from '../extensions/extension-repository.ts';
import type { TeamRow, VirtualKeyRow } from '../keys/virtual-key-row.ts';
import type { DeploymentEntry, ExtensionEntry, KeyEntry, TeamEntry } from './file-schema.ts';

export type Fields = Record<string, unknown>;

export function deploymentFieldsOfRow(row: DeploymentRow): Fields {
  return { ...createInputOf(row) };
}

export function deploymentFieldsOfEntry(entry: DeploymentEntry): Fields {
  return {
    publicModel: entry.publicModel,
    provider: entry.provider,
    upstreamModel: entry.upstreamModel,
    baseUrl: entry.baseUrl ?? null,
    enabled: entry.enabled,
    weight: entry.weight,
    rpmLimit: entry.rpmLimit ?? null,
    tpmLimit: entry.tpmLimit ?? null,
    pricing: entry.pricing ?? null,
    profile: entry.profile ?? null,
    providerOptions: entry.providerOptions,
  };
}

/** What teams and keys share (keys/limit-holder-fields.ts): name, scope, limits, budget. */
function limitHolderFieldsOfRow(row: TeamRow | VirtualKeyRow): Fields {
  return {
    name: row.name,
    allowedModels: row.allowed_models,
    rpmLimit: row.rpm_limit,
    tpmLimit: row.tpm_limit,
    budgetCents: row.budget_cents,
    budgetPeriod: row.budget_period,
  };
}

function limitHolderFieldsOfEntry(entry: TeamEntry | KeyEntry): Fields {
  return {
    name: entry.name,
    allowedModels: entry.allowedModels,
    rpmLimit: entry.rpmLimit ?? null,
    tpmLimit: entry.tpmLimit ?? null,
    budgetCents: entry.budgetCents ?? null,
    budgetPeriod: entry.budgetPeriod ?? null,
  };
}

export function teamFieldsOfRow(row: TeamRow): Fields {
  return { ...limitHolderFieldsOfRow(row), metadata: row.metadata };
}

export function teamFieldsOfEntry(entry: TeamEntry): Fields {
  return { ...limitHolderFieldsOfEntry(entry), metadata: entry.metadata };
}

/** `team`: the name the file gives the key's team (`teamNameOf` maps a stored team id to it). */
export function keyFieldsOfRow(row: VirtualKeyRow, teamNameOf: (id: string) => string): Fields {
  return {
    ...limitHolderFieldsOfRow(row),
    team: row.team_id === null ? null : teamNameOf(row.team_id),
    enabled: row.enabled,
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
    metadata: row.metadata,
    tags: row.tags,
  };
}

export function keyFieldsOfEntry(entry: KeyEntry): Fields {
  return {
    ...limitHolderFieldsOfEntry(entry),
    team: entry.team ?? null,
    enabled: entry.enabled,
    expiresAt: entry.expiresAt == null ? null : new Date(entry.expiresAt).toISOString(),
    metadata: entry.metadata,
    tags: entry.tags,
  };
}

type ExtensionSettings = Pick<
  ExtensionDefinition,
  'description' | 'critical' | 'enabled' | 'models' | 'config' | 'limits'
>;

/** An extension's settings; its source is compared apart (plan.ts), as the text is no field to show. */
function extensionFields(settings: ExtensionSettings): Fields {
  const { description, critical, enabled, models, config, limits } = settings;
  return {
    description,
    critical,
    enabled,
    models,
    config: config ?? null,
    limits: { timeoutMs: limits.timeoutMs, memoryMb: limits.memoryMb },
  };
}

export function extensionFieldsOfRow(row: ExtensionRow): Fields {
  return extensionFields(definitionOf(row, ''));
}

export function extensionFieldsOfEntry(entry: ExtensionEntry): Fields {
  return extensionFields({
    ...entry,
    config: entry.config ?? null,
    limits: { ...DEFAULT_EXTENSION_LIMITS, ...entry.limits },
  });
}
