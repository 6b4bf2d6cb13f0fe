import type { Config } from '../config.ts';
import { applyConfig } from '../declarative/apply-config.ts';
import { planLines, summary } from '../declarative/plan-text.ts';
import { readConfigFile } from '../declarative/read-config-file.ts';
import { catalogFacts } from '../deployments/catalog-facts.ts';
import { createLogger } from '../diagnostics/logger.ts';
import { isolatesTornDown } from '../extensions/extension-sandbox.ts';
import { openRuntime } from '../server/runtime.ts';

/** Steps between two progress lines of a large apply. */
const PROGRESS_EVERY = 50;

/**
 * `switchyard apply FILE [--prune] [--dry-run]`: prints the plan (stdout), applies it in one
 * transaction, then prints the secret of each key it issued, once. Progress goes to stderr.
 */
export async function applyCommand(
  config: Config,
  path: string,
  options: { prune: boolean; dryRun: boolean },
): Promise<void> {
  const loaded = await readConfigFile(path, process.env);
  const logger = createLogger(config.logLevel, process.stderr);
  const runtime = await openRuntime(config, logger);
  try {
    const result = await applyConfig(
      {
        db: runtime.database.background,
        keyring: runtime.keyring,
        cache: runtime.cache,
        catalog: catalogFacts,
        logger,
        variant: config.variant,
      },
      loaded,
      {
        ...options,
        onStep: (_step, done, total) => {
          if (done > 0 && done % PROGRESS_EVERY === 0) process.stderr.write(`applying: ${done}/${total}\n`);
        },
      },
    );
    const lines = planLines(result.steps);
    process.stdout.write(`${lines.join('\n')}\n`);
    if (options.dryRun) {
      process.stdout.write('dry run: nothing was written\n');
      return;
    }
    for (const key of result.issued) {
      process.stdout.write(`key ${key.name} (${key.id}) secret, shown this once: ${key.secret}\n`);
    }
    if (result.steps.length > 0) process.stdout.write(`applied: ${summary(result.steps)}\n`);
  } finally {
    await runtime.lifecycle.shutdown();
    // Each extension's source was compiled in an isolate; the process exits next (docs/operations.md, Shutdown).
    await isolatesTornDown();
  }
}
