import { sql } from 'kysely';
import { type Db, execute } from './database.ts';
import { SchemaBehindError } from './database-errors.ts';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, type Migration } from './migrations/index.ts';

/** Advisory lock id for migrations: any constant shared by every replica ("sy-migr" in hex). */
const MIGRATION_LOCK_ID = 0x73792d6d696772n;

const CREATE_LEDGER = `create table if not exists schema_migrations (
  version integer primary key,
  name text not null,
  applied_at timestamptz not null default now()
)`;

export type MigrationProgress = (migration: Migration, state: 'applying' | 'applied') => void;

/**
 * Applies pending migrations once, under a session advisory lock, each in its own transaction, so
 * replicas started together apply them exactly once. Returns the versions applied.
 */
export async function migrate(db: Db, onProgress?: MigrationProgress): Promise<number[]> {
  const applied: number[] = [];
  await db.transaction().execute(async (tx) => {
    // Transaction-scoped lock: released by commit or rollback, even if this process dies.
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID.toString()}::bigint)`.execute(tx);
    await execute(tx, CREATE_LEDGER);
    const { rows } = await sql<{ version: number }>`select version from schema_migrations`.execute(tx);
    const done = new Set(rows.map((r) => r.version));
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      onProgress?.(migration, 'applying');
      await execute(tx, migration.sql);
      await sql`insert into schema_migrations (version, name) values (${migration.version}, ${migration.name})`.execute(
        tx,
      );
      applied.push(migration.version);
      onProgress?.(migration, 'applied');
    }
  });
  return applied;
}

/** The database's schema version (0 when never migrated). */
export async function schemaVersion(db: Db): Promise<number> {
  const ledger = await sql<{
    exists: boolean;
  }>`select to_regclass('schema_migrations') is not null as exists`.execute(db);
  if (!ledger.rows[0].exists) return 0;
  const version = await sql<{
    version: number | null;
  }>`select max(version) as version from schema_migrations`.execute(db);
  return version.rows[0].version ?? 0;
}

/** A server whose schema is behind refuses to start (issue: foundation, point 4). */
export async function assertSchemaCurrent(db: Db): Promise<void> {
  const current = await schemaVersion(db);
  if (current < LATEST_SCHEMA_VERSION) throw new SchemaBehindError(current, LATEST_SCHEMA_VERSION);
}
