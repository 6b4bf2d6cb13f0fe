import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Config } from '../config.ts';
import { type ExportResult, exportConfig } from '../declarative/export-config.ts';
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
    const { text, unreferenced, modules } = await exportConfig(
      runtime.database.background,
      options.format,
      runtime.keyring,
    );
    if (options.output === undefined) process.stdout.write(text);
    else await writeFile(options.output, text, { mode: 0o600 });
    if (unreferenced.length > 0) {
      process.stderr.write(
        `export: ${unreferenced.length} credential(s) were set through the admin API; set ${unreferenced.join(', ')} before applying this file\n`,
      );
    }
    await writeModules(modules, options.output);
  } finally {
    await runtime.lifecycle.shutdown();
  }
}

/**
 * The modules of extensions the admin API made, beside the exported file where its `sourceFile`
 * says. A file already there is never overwritten: one that differs is named on stderr.
 */
async function writeModules(modules: ExportResult['modules'], output: string | undefined): Promise<void> {
  if (modules.length === 0) return;
  if (output === undefined) {
    process.stderr.write(
      `export: ${modules.map((module) => module.path).join(', ')}: extension module(s) kept only in the database; export with -o FILE to write them beside it\n`,
    );
    return;
  }
  for (const module of modules) {
    const path = resolve(dirname(output), module.path);
    await mkdir(dirname(path), { recursive: true });
    try {
      await writeFile(path, module.source, { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if ((await readFile(path, 'utf8')) !== module.source)
        process.stderr.write(`export: ${path} exists and differs from the stored module; left as it is\n`);
    }
  }
}
