/**
 * Entry point: `serve` (default), `migrate`, `encryption:rotate` (DESIGN.md section 8). Every
 * start-up failure prints one line naming the cause and exits with status 1.
 */
import { loadConfig } from './config.ts';
import { KeyringConfigError } from './crypto/index.ts';
import { ConfigError } from './errors/config-error.ts';
import { DatabaseConnectError, SchemaBehindError } from './store/database-errors.ts';

const COMMANDS = {
  serve: () => import('./commands/serve.ts').then((m) => m.serveCommand),
  migrate: () => import('./commands/migrate.ts').then((m) => m.migrateCommand),
  'encryption:rotate': () => import('./commands/rotate.ts').then((m) => m.rotateCommand),
} as const;

type CommandName = keyof typeof COMMANDS;

function isCommand(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

/** Errors whose message is already the one line an operator needs. */
function isOperatorError(error: unknown): error is Error {
  return (
    error instanceof ConfigError ||
    error instanceof KeyringConfigError ||
    error instanceof SchemaBehindError ||
    error instanceof DatabaseConnectError
  );
}

async function main(): Promise<void> {
  const name = process.argv[2] ?? 'serve';
  if (!isCommand(name)) {
    process.stderr.write(`unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')})\n`);
    process.exit(2);
  }
  try {
    const command = await COMMANDS[name]();
    await command(loadConfig(process.env));
  } catch (error) {
    const line = isOperatorError(error)
      ? error.message
      : `start failed: ${(error as Error).message ?? error}`;
    process.stderr.write(`switchyard: ${line}\n`);
    process.exit(1);
  }
}

await main();
