import { sql } from 'kysely';
import type { CacheStore } from '../cache/cache-store.ts';
import { CHANNELS } from '../cache/channels.ts';
import type { Keyring } from '../crypto/index.ts';
import { DeploymentAdmin } from '../deployments/deployment-admin.ts';
import type { CatalogLookup } from '../deployments/deployment-resolver.ts';
import type { Logger } from '../diagnostics/logger.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { ExtensionRepository } from '../extensions/extension-repository.ts';
import { ExtensionStore } from '../extensions/extension-store.ts';
import { VirtualKeyAdmin } from '../keys/virtual-key-admin.ts';
import { routerSettingsSchema } from '../router/router-settings.ts';
import { RouterSettingsRepository } from '../router/router-settings-repository.ts';
import type { Db } from '../store/database.ts';
import { TeamAdmin } from '../teams/team-admin.ts';
import { ConfigFileError } from './config-file-error.ts';
import { HeldAnnouncements } from './held-announcements.ts';
import { type CurrentState, planApply, type Step } from './plan.ts';
import type { LoadedConfig } from './read-config-file.ts';

/** Advisory lock of apply ("sy-conf" in hex): replicas starting with one CONFIG_FILE apply it one at a time. */
const APPLY_LOCK_ID = 0x73792d636f6e66n;

export interface ApplyDeps {
  /** A view bounded per statement, not per request step (Database.background): an apply is long. */
  db: Db;
  keyring: Keyring;
  cache: CacheStore;
  catalog: CatalogLookup;
  logger: Logger;
  /** Variant A reads extensions from EXTENSIONS_DIR only: a file naming one is refused there. */
  variant: 'a' | 'b';
}

export interface ApplyOptions {
  prune: boolean;
  dryRun: boolean;
  /** Called before each step runs (progress on a large apply). */
  onStep?(step: Step, done: number, total: number): void;
}

/** A key the apply created or re-keyed without a pre-shared secret: its secret, to show once. */
export interface IssuedSecret {
  name: string;
  id: string;
  secret: string;
}

export interface ApplyResult {
  steps: Step[];
  issued: IssuedSecret[];
}

/**
 * Makes the database match the file: one transaction under an advisory lock, so two processes
 * applying at once apply it once (the second finds nothing to change), and a failure anywhere
 * leaves the database as it was. Every write goes through the admin API's classes, with their
 * validation; their announcements to replicas are held until the commit. A dry run plans and
 * writes nothing.
 */
export async function applyConfig(
  deps: ApplyDeps,
  loaded: LoadedConfig,
  options: ApplyOptions,
): Promise<ApplyResult> {
  const announcements = new HeldAnnouncements();
  const result = await deps.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${APPLY_LOCK_ID.toString()}::bigint)`.execute(trx);
    const steps = planApply(await readCurrent(trx), loaded, deps.keyring, options.prune);
    if (options.dryRun) return { steps, issued: [] };
    const run = new StepRunner(trx, deps, announcements, loaded);
    for (const [done, step] of steps.entries()) {
      options.onStep?.(step, done, steps.length);
      await run.step(step);
    }
    return { steps, issued: run.issued };
  });
  await announcements.release(deps.cache, deps.logger);
  return result;
}

async function readCurrent(db: Db): Promise<CurrentState> {
  const repository = new RouterSettingsRepository(db);
  const [deployments, teams, keys, extensions, stored] = await Promise.all([
    db.selectFrom('deployments').selectAll().orderBy('id').execute(),
    db.selectFrom('teams').selectAll().orderBy('id').execute(),
    db.selectFrom('virtual_keys').selectAll().orderBy('id').execute(),
    new ExtensionRepository(db).all(),
    repository.read(),
  ]);
  return {
    deployments,
    teams,
    keys,
    extensions,
    routerSettings: routerSettingsSchema.parse(stored ?? {}),
  };
}

/** Runs steps with the admin classes bound to apply's transaction. */
class StepRunner {
  readonly issued: IssuedSecret[] = [];
  readonly #trx: Db;
  readonly #loaded: LoadedConfig;
  readonly #deployments: DeploymentAdmin;
  readonly #teams: TeamAdmin;
  readonly #keys: VirtualKeyAdmin;
  readonly #extensions: ExtensionStore | null;
  readonly #announcements: HeldAnnouncements;
  /** Team ids by the name the file gives them, filled as teams are applied. */
  readonly #teamIds = new Map<string, string>();

  constructor(trx: Db, deps: ApplyDeps, announcements: HeldAnnouncements, loaded: LoadedConfig) {
    this.#trx = trx;
    this.#loaded = loaded;
    this.#announcements = announcements;
    // Nothing in this process serves calls: replicas reload on the announcements after the commit.
    const local = { load: async () => {}, forget: () => {} };
    const shared = { db: trx, cache: announcements, logger: deps.logger };
    this.#deployments = new DeploymentAdmin({
      ...shared,
      keyring: deps.keyring,
      directory: local,
      catalog: deps.catalog,
    });
    this.#teams = new TeamAdmin({ ...shared, resolver: local });
    this.#keys = new VirtualKeyAdmin({ ...shared, resolver: local });
    this.#extensions =
      deps.variant === 'a'
        ? null
        : new ExtensionStore({ ...shared, repository: new ExtensionRepository(trx), keyring: deps.keyring });
  }

  /** A write the admin API's rules refuse is the file's problem, named at its entry. */
  async step(step: Step): Promise<void> {
    try {
      await this.#run(step);
    } catch (error) {
      if (!(error instanceof GatewayError) || error.status >= 500) throw error;
      const field = [LIST_OF[step.kind], step.index ?? 0, ...(error.param === null ? [] : [error.param])];
      throw new ConfigFileError([
        `${this.#loaded.locate(field)}: ${field.join('.')}: ${error.publicMessage}`,
      ]);
    }
  }

  async #run(step: Step): Promise<void> {
    if (step.kind === 'team') await this.#team(step);
    else if (step.kind === 'deployment') await this.#deployment(step);
    else if (step.kind === 'key') await this.#key(step);
    else if (step.kind === 'extension') await this.#extension(step);
    else await this.#routerSettings();
  }

  async #team(step: Step): Promise<void> {
    if (step.action === 'delete') return void (await this.#teams.delete(step.id ?? ''));
    const entry = this.#loaded.file.teams[step.index ?? 0];
    const { id: _adopted, ...input } = entry;
    const id = step.id ?? (await this.#teams.create(input)).id;
    if (step.action === 'update' && hasFieldChanges(step)) await this.#teams.update(id, patchOf(step));
    this.#teamIds.set(entry.name, id);
    await this.#mark('teams', id, step);
  }

  async #deployment(step: Step): Promise<void> {
    if (step.action === 'delete') return void (await this.#deployments.delete(step.id ?? ''));
    const index = step.index ?? 0;
    const { id: _adopted, name: _name, apiKeyFile: _file, ...entry } = this.#loaded.file.deployments[index];
    const apiKey = this.#loaded.apiKeys[index]?.value ?? null;
    if (step.action === 'create') {
      const row = await this.#deployments.create({ ...entry, apiKey });
      return this.#mark('deployments', row.id, step);
    }
    const patch = patchOf(step);
    if (step.changes.some((change) => change.field === 'apiKey')) Object.assign(patch, { apiKey });
    if (Object.keys(patch).length > 0) await this.#deployments.update(step.id ?? '', patch);
    await this.#mark('deployments', step.id ?? '', step);
  }

  async #key(step: Step): Promise<void> {
    if (step.action === 'delete') return void (await this.#keys.delete(step.id ?? ''));
    const index = step.index ?? 0;
    const { id: _adopted, team, secret: _ref, ...entry } = this.#loaded.file.keys[index];
    const secret = this.#loaded.keySecrets[index]?.value;
    const teamId = team === undefined ? null : await this.#teamId(team);
    if (step.action === 'create') {
      const created = await this.#keys.create({ ...entry, teamId }, secret);
      if (secret === undefined)
        this.issued.push({ name: entry.name, id: created.row.id, secret: created.secret });
      return this.#mark('virtual_keys', created.row.id, step);
    }
    const id = step.id ?? '';
    const patch = patchOf(step);
    if ('team' in patch) {
      delete patch.team;
      Object.assign(patch, { teamId });
    }
    if (Object.keys(patch).length > 0) await this.#keys.update(id, patch);
    if (step.changes.some((change) => change.field === 'secret') && secret !== undefined) {
      await this.#keys.rotate(id, { gracePeriodSeconds: 0 }, secret);
    }
    await this.#mark('virtual_keys', id, step);
  }

  async #extension(step: Step): Promise<void> {
    const store = this.#extensionStore();
    const id = step.id ?? step.name;
    if (step.action === 'delete') return void (await store.delete(id));
    const index = step.index ?? 0;
    const { name, sourceFile: _file, ...settings } = this.#loaded.file.extensions[index];
    const source = this.#loaded.extensionSources[index]?.value ?? '';
    if (step.action === 'create') await store.create({ ...settings, id: name, source });
    else {
      const patch = patchOf(step);
      if (step.changes.some((change) => change.field === 'source')) Object.assign(patch, { source });
      if (Object.keys(patch).length > 0) await store.update(id, patch);
    }
    await this.#mark('extensions', id, step);
  }

  #extensionStore(): ExtensionStore {
    if (this.#extensions !== null) return this.#extensions;
    throw new GatewayError('invalid_request', {
      status: 409,
      message: 'variant A loads extensions from EXTENSIONS_DIR only; remove them from this file',
    });
  }

  async #routerSettings(): Promise<void> {
    await new RouterSettingsRepository(this.#trx).write(this.#loaded.file.routerSettings ?? {});
    await this.#announcements.publish(CHANNELS.routerSettingsChanged, 'apply');
  }

  /** A team of the file applied in this run, or one a file made before. */
  async #teamId(name: string): Promise<string> {
    const known = this.#teamIds.get(name);
    if (known !== undefined) return known;
    const row = await this.#trx
      .selectFrom('teams')
      .select('id')
      .where('config_name', '=', name)
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /**
   * Marks the object as the file's, with the reference its secret came from (never the secret), or
   * an extension's module path.
   */
  async #mark(
    table: 'teams' | 'deployments' | 'virtual_keys' | 'extensions',
    id: string,
    step: Step,
  ): Promise<void> {
    const ref = step.secretRef ?? null;
    const marker =
      table === 'teams'
        ? { config_name: step.name }
        : table === 'extensions'
          ? { config_name: step.name, source_ref: ref }
          : { config_name: step.name, secret_ref: ref };
    await this.#trx.updateTable(table).set(marker).where('id', '=', id).execute();
  }
}

/** The list of the file each kind of step comes from, to name an entry in an error. */
const LIST_OF = {
  team: 'teams',
  deployment: 'deployments',
  key: 'keys',
  extension: 'extensions',
  routerSettings: 'routerSettings',
} as const;

function hasFieldChanges(step: Step): boolean {
  return step.changes.some((change) => change.secret !== true);
}

/** The changed fields as a PATCH body (the file's field names are the admin API's). */
function patchOf(step: Step): Record<string, never> {
  const patch: Record<string, unknown> = {};
  for (const change of step.changes) if (change.secret !== true) patch[change.field] = change.to;
  return patch as Record<string, never>;
}
