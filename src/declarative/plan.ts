import { hashKeySecret } from '../auth/key-hash.ts';
import type { Keyring } from '../crypto/index.ts';
import type { DeploymentRow } from '../deployments/deployment.ts';
import type { ExtensionRow } from '../extensions/extension-repository.ts';
import type { TeamRow, VirtualKeyRow } from '../keys/virtual-key-row.ts';
import { canonicalJson } from '../response-cache/cache-key.ts';
import type { RouterSettings } from '../router/router-settings.ts';
import {
  deploymentFieldsOfEntry,
  deploymentFieldsOfRow,
  extensionFieldsOfEntry,
  extensionFieldsOfRow,
  type Fields,
  keyFieldsOfEntry,
  keyFieldsOfRow,
  teamFieldsOfEntry,
  teamFieldsOfRow,
} from './entry-fields.ts';
import type { LoadedConfig, ResolvedSecret } from './read-config-file.ts';

export type Kind = 'team' | 'deployment' | 'key' | 'extension' | 'routerSettings';

/**
 * One field's change; a secret's values are never part of it (`secret: true`, values left out),
 * nor an extension's source (a module is no value to print in a plan).
 */
export interface FieldChange {
  field: string;
  from?: unknown;
  to?: unknown;
  secret?: boolean;
}

/** What apply does to one object. `adopt`: the file takes over an object the admin API made. */
export interface Step {
  kind: Kind;
  name: string;
  action: 'create' | 'update' | 'delete';
  /** The stored object's id (none for a create). */
  id?: string;
  adopt?: boolean;
  changes: FieldChange[];
  /** The entry's index in its list of the file (creates and updates). */
  index?: number;
  /** A new secret reference to store (only the reference: `secret_ref`), or an extension's module path (`source_ref`). */
  secretRef?: string | null;
}

/** What the database holds now, read in apply's transaction. */
export interface CurrentState {
  deployments: DeploymentRow[];
  teams: TeamRow[];
  keys: VirtualKeyRow[];
  extensions: ExtensionRow[];
  routerSettings: RouterSettings;
}

interface Managed {
  id: string;
  config_name: string | null;
}

/** What stepFor needs to compare a secret or a module: the change, the reference to store, the stored one. */
interface ReferencedValue {
  change?: FieldChange;
  ref: string | null;
  stored: string | null;
}

/**
 * The steps that make the database match the file, in the order they can run: teams (keys name
 * them), deployments, keys, extensions, router settings, then deletions (keys before the teams
 * they are in).
 * Objects the file does not name are deleted only with `prune`, and only those a file made.
 */
export function planApply(
  current: CurrentState,
  loaded: LoadedConfig,
  keyring: Keyring,
  prune: boolean,
): Step[] {
  const { file } = loaded;
  const teamNameOf = (id: string) => {
    const team = current.teams.find((row) => row.id === id);
    return team?.config_name ?? team?.name ?? id;
  };
  const steps: Step[] = [];
  file.teams.forEach((entry, index) => {
    steps.push(...stepFor('team', entry, index, current.teams, teamFieldsOfEntry(entry), teamFieldsOfRow));
  });
  file.deployments.forEach((entry, index) => {
    const secret = loaded.apiKeys[index];
    const extra = (row: DeploymentRow | undefined) => deploymentSecretChange(row, secret, keyring);
    steps.push(
      ...stepFor(
        'deployment',
        entry,
        index,
        current.deployments,
        deploymentFieldsOfEntry(entry),
        deploymentFieldsOfRow,
        extra,
      ),
    );
  });
  file.keys.forEach((entry, index) => {
    const secret = loaded.keySecrets[index];
    steps.push(
      ...stepFor(
        'key',
        entry,
        index,
        current.keys,
        keyFieldsOfEntry(entry),
        (row) => keyFieldsOfRow(row, teamNameOf),
        (row) => keySecretChange(row, secret),
      ),
    );
  });
  file.extensions.forEach((entry, index) => {
    const source = loaded.extensionSources[index];
    // An extension's name is its id: an admin-made one of that id is taken over.
    steps.push(
      ...stepFor(
        'extension',
        { name: entry.name, id: entry.name },
        index,
        current.extensions,
        extensionFieldsOfEntry(entry),
        extensionFieldsOfRow,
        (row) => extensionSourceChange(row, source, keyring),
      ),
    );
  });
  if (file.routerSettings !== undefined) {
    const changes = diff(
      current.routerSettings as unknown as Fields,
      file.routerSettings as unknown as Fields,
    );
    if (changes.length > 0)
      steps.push({ kind: 'routerSettings', name: 'routerSettings', action: 'update', changes });
  }
  if (prune) {
    steps.push(
      ...deletions('key', current.keys, file.keys),
      ...deletions('deployment', current.deployments, file.deployments),
      ...deletions('extension', current.extensions, file.extensions),
    );
    steps.push(...deletions('team', current.teams, file.teams));
  }
  return steps;
}

function stepFor<Row extends Managed>(
  kind: Kind,
  entry: { name: string; id?: string },
  index: number,
  rows: readonly Row[],
  desired: Fields,
  fieldsOf: (row: Row) => Fields,
  secretOf?: (row: Row | undefined) => ReferencedValue,
): Step[] {
  const row = matching(entry, rows);
  const secret = secretOf?.(row);
  if (row === undefined) {
    const changes: FieldChange[] = Object.entries(desired).map(([field, to]) => ({ field, to }));
    if (secret?.change !== undefined) changes.push(secret.change);
    return [{ kind, name: entry.name, action: 'create', index, changes, secretRef: secret?.ref ?? null }];
  }
  const changes = diff(fieldsOf(row), desired);
  if (secret?.change !== undefined) changes.push(secret.change);
  const adopt = row.config_name === null;
  const refChanged = secret !== undefined && secret.ref !== secret.stored;
  if (changes.length === 0 && !adopt && !refChanged) return [];
  return [
    {
      kind,
      name: entry.name,
      action: 'update',
      id: row.id,
      adopt,
      index,
      changes,
      secretRef: secret?.ref ?? null,
    },
  ];
}

/** The row a file entry stands for: the one a file named so, else the admin-made one it adopts by id. */
function matching<Row extends Managed>(
  entry: { name: string; id?: string },
  rows: readonly Row[],
): Row | undefined {
  return (
    rows.find((row) => row.config_name === entry.name) ??
    (entry.id === undefined ? undefined : rows.find((row) => row.id === entry.id && row.config_name === null))
  );
}

function diff(from: Fields, to: Fields): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const [field, value] of Object.entries(to)) {
    if (canonicalJson(from[field] ?? null) !== canonicalJson(value ?? null)) {
      changes.push({ field, from: from[field] ?? null, to: value ?? null });
    }
  }
  return changes;
}

/** The credential changes when the file's differs from the stored one, compared opened, never shown. */
function deploymentSecretChange(
  row: DeploymentRow | undefined,
  secret: ResolvedSecret | undefined,
  keyring: Keyring,
): ReferencedValue {
  const ref = secret?.ref ?? null;
  if (row === undefined)
    return {
      ref,
      stored: null,
      change: secret === undefined ? undefined : { field: 'apiKey', secret: true },
    };
  const stored = row.secret_ref;
  if (secret === undefined) {
    return {
      ref,
      stored,
      change: row.api_key_envelope === null ? undefined : { field: 'apiKey', secret: true, to: null },
    };
  }
  const same =
    row.api_key_envelope !== null &&
    opens(keyring, 'deployment-credential', row.api_key_envelope, secret.value);
  return { ref, stored, change: same ? undefined : { field: 'apiKey', secret: true } };
}

/** The module changes when the stored source, opened, differs from the file's. */
function extensionSourceChange(
  row: ExtensionRow | undefined,
  source: ResolvedSecret | undefined,
  keyring: Keyring,
): ReferencedValue {
  const ref = source?.ref ?? null;
  const change: FieldChange = { field: 'source', secret: true };
  if (row === undefined) return { ref, stored: null, change };
  const same =
    source !== undefined && opens(keyring, 'extension-artifact', row.source_envelope, source.value);
  return { ref, stored: row.source_ref, change: same ? undefined : change };
}

/** True when the envelope holds `value`; one this keyring cannot open is replaced by the file's value. */
function opens(
  keyring: Keyring,
  purpose: 'deployment-credential' | 'extension-artifact',
  envelope: string,
  value: string,
): boolean {
  try {
    return keyring.openString(purpose, envelope) === value;
  } catch {
    return false;
  }
}

/** A pre-shared key secret changes when its hash differs; without one the stored secret stays. */
function keySecretChange(
  row: VirtualKeyRow | undefined,
  secret: ResolvedSecret | undefined,
): ReferencedValue {
  const stored = row?.secret_ref ?? null;
  const ref = secret?.ref ?? stored;
  if (secret === undefined) return { ref, stored };
  if (row !== undefined && hashKeySecret(secret.value).equals(row.key_hash)) return { ref, stored };
  return { ref, stored, change: { field: 'secret', secret: true } };
}

function deletions<Row extends Managed>(
  kind: Kind,
  rows: readonly Row[],
  entries: readonly { name: string }[],
): Step[] {
  const named = new Set(entries.map((entry) => entry.name));
  return rows
    .filter((row) => row.config_name !== null && !named.has(row.config_name))
    .map((row) => ({
      kind,
      name: row.config_name ?? row.id,
      action: 'delete' as const,
      id: row.id,
      changes: [],
    }));
}
