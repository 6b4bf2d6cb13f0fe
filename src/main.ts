/**
 * Entry point of the `switchyard` CLI (DESIGN.md section 5, CLI and declarative configuration):
 * `serve` (the default), `migrate`, `apply`, `export`, `encryption:rotate`, `keys`, `teams`,
 * `doctor`. Every failure prints one line naming the cause; exit statuses are in
 * commands/exit-codes.ts.
 */
// First: on an old Node.js it stops with what to do before anything else runs.
import './node-version.ts';
import { CommanderError } from 'commander';
import { CommandError, EXIT } from './commands/exit-codes.ts';
import { buildProgram } from './commands/program.ts';
import { KeyringConfigError } from './crypto/index.ts';
import { ConfigFileError } from './declarative/config-file-error.ts';
import { ConfigError } from './errors/config-error.ts';
import { DatabaseConnectError, SchemaBehindError } from './store/database-errors.ts';

/** Errors whose message is already the one line an operator needs. */
function isOperatorError(error: unknown): error is Error {
  return (
    error instanceof ConfigError ||
    error instanceof KeyringConfigError ||
    error instanceof SchemaBehindError ||
    error instanceof DatabaseConnectError ||
    error instanceof CommandError
  );
}

async function main(): Promise<void> {
  try {
    // No command serves (DESIGN.md section 3); not commander's default command, which would
    // take a mistyped command for serve's argument.
    const args = process.argv.slice(2);
    await buildProgram().parseAsync(args.length === 0 ? ['serve'] : args, { from: 'user' });
  } catch (error) {
    // Commander printed the help, the version or the usage error already.
    if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage);
    if (error instanceof ConfigFileError) {
      for (const problem of error.problems) process.stderr.write(`${problem}\n`);
      process.exit(EXIT.invalidFile);
    }
    const line = isOperatorError(error) ? error.message : `failed: ${(error as Error).message ?? error}`;
    process.stderr.write(`switchyard: ${line}\n`);
    process.exit(error instanceof CommandError ? error.exitCode : EXIT.failed);
  }
}

await main();
