import { catalogFacts } from '../deployments/catalog-facts.ts';
import type { Logger } from '../diagnostics/logger.ts';
import type { Runtime } from '../server/runtime.ts';
import { applyConfig } from './apply-config.ts';
import { ConfigFileError } from './config-file-error.ts';
import { summary } from './plan-text.ts';
import { readConfigFile } from './read-config-file.ts';

/**
 * `CONFIG_FILE`: applied by every process at start, without pruning. The advisory lock lets one
 * replica apply it; the others find nothing to change. A start has nobody to show a generated
 * key secret to, so every key of the file must bring its own (by reference).
 */
export async function applyAtStart(runtime: Runtime, path: string, logger: Logger): Promise<void> {
  const loaded = await readConfigFile(path, process.env);
  const bare = loaded.file.keys.flatMap((key, index) => (key.secret === undefined ? [index] : []));
  if (bare.length > 0) {
    throw new ConfigFileError(
      bare.map(
        (index) =>
          `${loaded.locate(['keys', index])}: keys.${index}.secret: CONFIG_FILE needs every key's secret by reference (\${env:NAME}); or create the key with switchyard apply, which prints it once`,
      ),
    );
  }
  const { database, keyring, cache, config } = runtime;
  const result = await applyConfig(
    // The background view: the apply may wait on another replica's lock, and writes many rows, far
    // past the request path's DEPENDENCY_TIMEOUT_MS.
    { db: database.background, keyring, cache, catalog: catalogFacts, logger, variant: config.variant },
    loaded,
    { prune: false, dryRun: false },
  );
  logger.info({ file: path, changes: result.steps.length }, `CONFIG_FILE applied: ${summary(result.steps)}`);
}
