import { stringify } from 'yaml';
import type { Keyring } from '../crypto/index.ts';
import type { DeploymentRow } from '../deployments/deployment.ts';
import { ExtensionRepository, type ExtensionRow } from '../extensions/extension-repository.ts';
import type { TeamRow, VirtualKeyRow } from '../keys/virtual-key-row.ts';
import { routerSettingsSchema } from '../router/router-settings.ts';
import { RouterSettingsRepository } from '../router/router-settings-repository.ts';
import type { Db } from '../store/database.ts';
import {
  deploymentFieldsOfRow,
  extensionFieldsOfRow,
  type Fields,
  keyFieldsOfRow,
  teamFieldsOfRow,
} from './entry-fields.ts';

export interface ExportResult {
  text: string;
  /** Secrets the database holds with no reference: the variables the export names for them, to be set before an apply. */
  unreferenced: string[];
  /**
   * Extensions made through the admin API have no module file: the export names one
   * (`extensions/<id>.js`, relative to the exported file) and gives its text, to be written there.
   */
  modules: { path: string; source: string }[];
}

/**
 * The running configuration as a configuration file: every deployment, team and key (their
 * settings; never a secret) and the router settings. A secret appears as the reference it came
 * from; one set through the admin API gets `${env:...}` with a name made from its entry's, listed
 * in `unreferenced`. Objects the admin API made carry their `id`, so applying the export takes
 * them over instead of duplicating them (an extension's name is its id). An extension's module
 * is its file's path; one the admin API made is given in `modules`, opened with the keyring.
 */
export async function exportConfig(db: Db, format: 'yaml' | 'json', keyring: Keyring): Promise<ExportResult> {
  const [deployments, teams, keys, extensions, stored] = await Promise.all([
    db.selectFrom('deployments').selectAll().orderBy('id').execute(),
    db.selectFrom('teams').selectAll().orderBy('id').execute(),
    db.selectFrom('virtual_keys').selectAll().orderBy('id').execute(),
    new ExtensionRepository(db).all(),
    new RouterSettingsRepository(db).read(),
  ]);
  const unreferenced: string[] = [];
  const modules: ExportResult['modules'] = [];
  const teamName = (row: TeamRow) => row.config_name ?? row.name;
  const teamNameOf = (id: string) => {
    const team = teams.find((row) => row.id === id);
    return team === undefined ? id : teamName(team);
  };
  const file = {
    deployments: deployments.map((row) => deploymentEntry(row, unreferenced)),
    teams: teams.map((row) => entry(teamName(row), row, teamFieldsOfRow(row))),
    keys: keys.map((row) => keyEntry(row, keyFieldsOfRow(row, teamNameOf))),
    extensions: extensions.map((row) => extensionEntry(row, keyring, modules)),
    routerSettings: routerSettingsSchema.parse(stored ?? {}),
  };
  const text = format === 'json' ? `${JSON.stringify(file, null, 2)}\n` : stringify(file);
  return { text, unreferenced, modules };
}

/** `name` first, then `id` for an object the admin API made, then the fields that are set. */
function entry(name: string, row: { id: string; config_name: string | null }, fields: Fields): Fields {
  // A team's or key's `name` is its entry's name: the one a file gave it, or its own.
  const set = Object.fromEntries(
    Object.entries(fields).filter(([field, value]) => value !== null && field !== 'name'),
  );
  return { name, ...(row.config_name === null ? { id: row.id } : {}), ...set };
}

function deploymentEntry(row: DeploymentRow, unreferenced: string[]): Fields {
  const name = row.config_name ?? row.id;
  const fields = entry(name, row, deploymentFieldsOfRow(row));
  if (row.api_key_envelope === null) return fields;
  if (row.secret_ref !== null) return { ...fields, ...secretField(row.secret_ref) };
  const variable = `SWITCHYARD_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_API_KEY`;
  unreferenced.push(variable);
  return { ...fields, apiKey: `\${env:${variable}}` };
}

function keyEntry(row: VirtualKeyRow, fields: Fields): Fields {
  const shown = entry(row.config_name ?? row.name, row, fields);
  return row.secret_ref === null ? shown : { ...shown, secret: row.secret_ref };
}

function extensionEntry(row: ExtensionRow, keyring: Keyring, modules: ExportResult['modules']): Fields {
  const sourceFile = row.source_ref ?? `extensions/${row.id}.js`;
  if (row.source_ref === null)
    modules.push({ path: sourceFile, source: keyring.openString('extension-artifact', row.source_envelope) });
  const fields = Object.entries(extensionFieldsOfRow(row)).filter(([, value]) => value !== null);
  return { name: row.id, sourceFile, ...Object.fromEntries(fields) };
}

/** A stored reference is `${env:NAME}` or a file path (`apiKeyFile`). */
function secretField(ref: string): Fields {
  return ref.startsWith('${env:') ? { apiKey: ref } : { apiKeyFile: ref };
}
