import type { CacheStore } from '../cache/cache-store.ts';
import { ConfigurationSnapshot } from '../cache/configuration-snapshot.ts';
import type { Config } from '../config.ts';
import type { Keyring } from '../crypto/index.ts';
import type { Logger } from '../diagnostics/logger.ts';
import type { ReadinessProbe } from '../diagnostics/readiness-probe.ts';
import type { FeatureModule } from '../pipeline/feature-module.ts';
import type { AnswerStage, Stage } from '../pipeline/stage.ts';
import type { Db } from '../store/database.ts';
import { afterUpstreamStage } from './after-upstream.ts';
import { beforeUpstreamStage } from './before-upstream-stage.ts';
import { DatabaseExtensions } from './database-extensions.ts';
import { DirectoryExtensions } from './directory-extensions.ts';
import { ExtensionAdmin } from './extension-admin.ts';
import { ExtensionRepository, type ExtensionRow } from './extension-repository.ts';
import { ExtensionRuntime, type ExtensionSource } from './extension-runtime.ts';

export interface ExtensionsDeps {
  config: Config;
  db: Db;
  cache: CacheStore;
  keyring: Keyring;
  logger: Logger;
  /** Postgres did not answer at start: nothing is loaded until `loadSaved` or the database answers. */
  databaseUnreachable?: boolean;
}

/** The extension runtime as the composition root wires it. */
export interface Extensions {
  runtime: ExtensionRuntime;
  /** The call stage running `beforeUpstream`. */
  beforeUpstream: Stage;
  /** The answer stage running `afterUpstream`. */
  afterUpstream: AnswerStage;
  /** The rules of `/admin/extensions`. */
  admin: ExtensionAdmin;
  probe: ReadinessProbe;
  /**
   * At a start without Postgres: loads the cache store's copy of the database's extensions (and
   * EXTENSIONS_DIR). False when variant B has no copy: then nothing is loaded.
   */
  loadSaved(): Promise<boolean>;
  close(): Promise<void>;
  /** The hooks at their places, the runtime's probe, its close at shutdown. */
  module: FeatureModule;
}

/**
 * Loads every extension (variant B: the database, then EXTENSIONS_DIR; variant A: EXTENSIONS_DIR
 * only), compiles each into its isolate, and keeps them current: changes announced by any
 * replica, resets, and edits of EXTENSIONS_DIR.
 */
export async function createExtensions(deps: ExtensionsDeps): Promise<Extensions> {
  const { config, logger } = deps;
  const repository = config.variant === 'b' ? new ExtensionRepository(deps.db) : null;
  const directory =
    config.extensionsDir === undefined ? null : new DirectoryExtensions(config.extensionsDir, logger);
  const saved = new ConfigurationSnapshot<ExtensionRow[]>(deps.cache, 'extensions', logger);
  const stored = repository === null ? null : new DatabaseExtensions(repository, deps.keyring, logger, saved);
  const sources: ExtensionSource[] = [];
  if (stored !== null) sources.push(stored);
  if (directory !== null) sources.push(directory);
  const runtime = new ExtensionRuntime({
    sources,
    breakerThreshold: config.extensionBreakerThreshold,
    // The largest answer the gateway takes from an upstream: no hook result needs to be larger.
    maxResultChars: config.upstreamMaxAnswerBytes,
    logger,
  });
  if (deps.databaseUnreachable !== true) await runtime.load();
  const loadSaved = async () => {
    if (stored !== null && !(await stored.useSavedOnce())) return false;
    await runtime.load();
    return true;
  };
  const stopWatching = await runtime.watch(deps.cache);
  const stopDirectory = directory?.watch(() => void runtime.reload()) ?? (() => undefined);
  const admin = new ExtensionAdmin({ ...deps, repository, runtime });
  const beforeUpstream = beforeUpstreamStage(runtime);
  const afterUpstream = afterUpstreamStage(runtime);
  const probe: ReadinessProbe = { name: 'extensions', check: () => runtime.probe() };
  const close = async () => {
    stopDirectory();
    await stopWatching();
    await runtime.close();
  };
  return {
    runtime,
    beforeUpstream,
    afterUpstream,
    admin,
    probe,
    loadSaved,
    close,
    module: {
      name: 'extensions',
      call: { 'before-upstream': beforeUpstream },
      answer: { 'after-upstream': afterUpstream },
      probes: [probe],
      shutdown: [{ phase: 'flush', name: 'extensions', run: close }],
    },
  };
}
