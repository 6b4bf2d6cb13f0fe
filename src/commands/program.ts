import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../config.ts';

/** The version in package.json: the same relative path from src/ and from dist/. */
function packageVersion(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError('expected an integer >= 0');
  return parsed;
}

const EXIT_CODES_HELP = `
Exit status: 0 done; 1 failed (a bad setting, a dependency down, a problem found);
2 usage error; 3 apply: the configuration file is invalid.
Configuration comes from the environment (docs/configuration.md).`;

/**
 * The command tree. Each action imports its module when it runs, so `--help` and a short command
 * load none of the gateway (docs/decisions/hot-path.md, Modules loaded only where used).
 */
export function buildProgram(): Command {
  const program = new Command('switchyard')
    .description('Model routing gateway: one HTTP service in front of many inference providers.')
    .version(packageVersion(), '-v, --version')
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', EXIT_CODES_HELP);

  program
    .command('serve')
    .description('serve the gateway (the default command; `npm start` builds, then runs it)')
    .action(async () => {
      const { serveCommand } = await import('./serve.ts');
      await serveCommand(loadConfig(process.env));
    });

  program
    .command('migrate')
    .description('apply pending database migrations once, under an advisory lock')
    .action(async () => {
      const { migrateCommand } = await import('./migrate.ts');
      await migrateCommand(loadConfig(process.env));
    });

  program
    .command('apply')
    .description('make the database match a configuration file (YAML or JSON; docs/configuration.md)')
    .argument('<file>', 'the configuration file')
    .option('--prune', 'also delete what the file no longer names (only objects a file created)')
    .option('--dry-run', 'print the plan, field by field, and write nothing')
    .action(async (file: string, options: { prune?: boolean; dryRun?: boolean }) => {
      const { applyCommand } = await import('./apply.ts');
      await applyCommand(loadConfig(process.env), file, {
        prune: options.prune === true,
        dryRun: options.dryRun === true,
      });
    });

  program
    .command('export')
    .description('write the running configuration as a configuration file, secrets as references')
    .addOption(new Option('--format <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .action(async (options: { format: 'yaml' | 'json'; output?: string }) => {
      const { exportCommand } = await import('./export.ts');
      await exportCommand(loadConfig(process.env), options);
    });

  program
    .command('encryption:rotate')
    .description('re-encrypt every stored envelope under ACTIVE_ENCRYPTION_KEY_ID (variant B)')
    .action(async () => {
      const { rotateCommand } = await import('./rotate.ts');
      await rotateCommand(loadConfig(process.env));
    });

  program.addCommand(keysCommand());
  program.addCommand(teamsCommand());

  program
    .command('doctor')
    .description('check the configuration, database, cache store, migrations and keyring; say what to do')
    .option('--probe', "also send each enabled deployment's upstream a tiny request")
    .action(async (options: { probe?: boolean }) => {
      const { doctorCommand } = await import('./doctor.ts');
      await doctorCommand(process.env, { probe: options.probe === true });
    });
  return program;
}

function keysCommand(): Command {
  const keys = new Command('keys').description('virtual keys: create, list, disable, rotate').exitOverride();
  keys
    .command('create')
    .description('issue a virtual key; its secret is printed once')
    .requiredOption('--name <name>', 'a name for people')
    .option('--models <models>', 'comma-separated public models it may call (* = all)', '*')
    .option('--team <teamId>', 'the team it belongs to')
    .option('--rpm-limit <n>', 'requests per minute', positiveInteger)
    .option('--tpm-limit <n>', 'tokens per minute', positiveInteger)
    .option('--budget-cents <n>', 'budget in cents', positiveInteger)
    .addOption(
      new Option('--budget-period <period>', 'budget period').choices(['daily', 'weekly', 'monthly']),
    )
    .option('--json', 'print the key as JSON')
    .action(async (options) => {
      const { createKeyCommand } = await import('./keys.ts');
      await createKeyCommand(loadConfig(process.env), options);
    });
  keys
    .command('list')
    .description('list virtual keys (never their secrets)')
    .option('--json', 'one JSON object per line')
    .action(async (options: { json?: boolean }) => {
      const { listKeysCommand } = await import('./keys.ts');
      await listKeysCommand(loadConfig(process.env), options);
    });
  keys
    .command('disable')
    .description('disable a key: every replica refuses it from its next call')
    .argument('<id>', 'the key id (key_...)')
    .action(async (id: string) => {
      const { disableKeyCommand } = await import('./keys.ts');
      await disableKeyCommand(loadConfig(process.env), id);
    });
  keys
    .command('rotate')
    .description('give a key a new secret, printed once')
    .argument('<id>', 'the key id (key_...)')
    .option('--grace-period-seconds <n>', 'how long the replaced secret stays valid', positiveInteger, 0)
    .option('--json', 'print the key as JSON')
    .action(async (id: string, options: { gracePeriodSeconds: number; json?: boolean }) => {
      const { rotateKeyCommand } = await import('./keys.ts');
      await rotateKeyCommand(loadConfig(process.env), id, options);
    });
  return keys;
}

function teamsCommand(): Command {
  const teams = new Command('teams').description('teams').exitOverride();
  teams
    .command('list')
    .description('list teams')
    .option('--json', 'one JSON object per line')
    .action(async (options: { json?: boolean }) => {
      const { listTeamsCommand } = await import('./teams.ts');
      await listTeamsCommand(loadConfig(process.env), options);
    });
  return teams;
}
