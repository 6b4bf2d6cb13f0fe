import { writeFile } from 'node:fs/promises';
import type { Config } from '../config.ts';
import { exportConfig } from '../declarative/export-config.ts';
import { createLogger } from '../diagnostics/logger.ts';
import { openRuntime } from '../server/runtime.ts';

/** `switchyard export [--format yaml|json] [-o FILE]`: the running configuration, secrets as references. */
export async function exportCommand(
  config: Config,
  options: { format: 'yaml' | 'json'; output?: string },
): Promise<void> {
  const logger = createLogger(config.logLevel, process.stderr);
  const runtime = await openRuntime(config, logger);
  try {
    const { text, unreferenced } = await exportConfig(runtime.database.background, options.format);
    if (options.output === undefined) process.stdout.write(text);
    else await writeFile(options.output, text, { mode: 0o600 });
    if (unreferenced.length > 0) {
      process.stderr.write(
        `export: ${unreferenced.length} credential(s) were set through the admin API; set ${unreferenced.join(', ')} before applying this file\n`,
      );
    }
  } finally {
    await runtime.lifecycle.shutdown();
  }
}
