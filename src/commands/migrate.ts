import type { Config } from '../config.ts';
import { DatabaseConnectError, openDatabase } from '../store/database.ts';
import { isDatabaseUnavailable } from '../store/database-errors.ts';
import { migrate } from '../store/migrate.ts';
import { LATEST_SCHEMA_VERSION } from '../store/migrations/index.ts';

/** An index built on a large table may take long; a stalled connection still ends, within the hour. */
const MIGRATION_STATEMENT_TIMEOUT_MS = 60 * 60_000;

/** `npm run migrate`: applies pending migrations once, under an advisory lock, and says what it did. */
export async function migrateCommand(config: Config): Promise<void> {
  if (config.databaseUrl === undefined) {
    process.stdout.write(
      'DATABASE_URL is not set: the embedded database migrates itself at start; nothing to do\n',
    );
    return;
  }
  const database = openDatabase({
    url: config.databaseUrl,
    poolMax: 1,
    timeoutMs: 10_000,
    backgroundTimeoutMs: MIGRATION_STATEMENT_TIMEOUT_MS,
  });
  try {
    const applied = await migrate(database.background, (migration, state) => {
      if (state === 'applying') process.stdout.write(`applying ${migration.version} ${migration.name} ... `);
      else process.stdout.write('done\n');
    }).catch((error: unknown) => {
      // Unlike `serve`, which starts without the database, a migration has nothing to do without it.
      throw isDatabaseUnavailable(error) ? new DatabaseConnectError(config.databaseUrl ?? '', error) : error;
    });
    process.stdout.write(
      applied.length === 0
        ? `schema is current (version ${LATEST_SCHEMA_VERSION})\n`
        : `applied ${applied.length} migration(s); schema is at version ${LATEST_SCHEMA_VERSION}\n`,
    );
  } finally {
    await database.close();
  }
}
