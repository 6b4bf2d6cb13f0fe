import type { Sql } from './database.ts';
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
export async function migrate(sql: Sql, onProgress?: MigrationProgress): Promise<number[]> {
  const applied: number[] = [];
  await sql.begin(async (tx) => {
    // Transaction-scoped lock: released by commit or rollback, even if this process dies.
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID.toString()}::bigint)`;
    await tx.unsafe(CREATE_LEDGER);
    const done = new Set(
      (await tx<{ version: number }[]>`select version from schema_migrations`).map((r) => r.version),
    );
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      onProgress?.(migration, 'applying');
      await tx.unsafe(migration.sql);
      await tx`insert into schema_migrations (version, name) values (${migration.version}, ${migration.name})`;
      applied.push(migration.version);
      onProgress?.(migration, 'applied');
    }
  });
  return applied;
}

/** The database's schema version (0 when never migrated). */
export async function schemaVersion(sql: Sql): Promise<number> {
  const [ledger] = await sql<
    { exists: boolean }[]
  >`select to_regclass('schema_migrations') is not null as exists`;
  if (!ledger.exists) return 0;
  const [row] = await sql<
    { version: number | null }[]
  >`select max(version) as version from schema_migrations`;
  return row.version ?? 0;
}

export class SchemaBehindError extends Error {
  constructor(current: number) {
    super(
      `database schema is at version ${current} but this build needs ${LATEST_SCHEMA_VERSION}: run \`npm run migrate\` before starting the server`,
    );
    this.name = 'SchemaBehindError';
  }
}

/** A server whose schema is behind refuses to start (issue: foundation, point 4). */
export async function assertSchemaCurrent(sql: Sql): Promise<void> {
  const current = await schemaVersion(sql);
  if (current < LATEST_SCHEMA_VERSION) throw new SchemaBehindError(current);
}
