import { CompiledQuery, Kysely, PostgresDialect, type QueryResult } from 'kysely';
import { Pool, TypeOverrides } from 'pg';
import { DIAGNOSTICS } from '../diagnostics/diagnostics-channels.ts';
import { boundedPool } from './bounded-pool.ts';
import { withTimeout } from './database-errors.ts';
import type { Tables } from './tables.ts';

export {
  DatabaseConnectError,
  DatabaseUnavailableError,
  DependencyTimeoutError,
  isDatabaseUnavailable,
  isUnstorableText,
  withTimeout,
} from './database-errors.ts';

export type Db = Kysely<Tables>;

export interface Database {
  /**
   * The request path: waiting for a connection and every statement of one checkout end within
   * the dependency timeout (SPEC.md cross-cutting rule 2), so a call that needs the database
   * during a stall is answered 503, never held.
   */
  readonly db: Db;
  /**
   * Background work (record writes, maintenance jobs, migrations, key rotation): each
   * statement bounded by `backgroundTimeoutMs`, so large batches fit but a stalled connection
   * still ends.
   */
  readonly background: Db;
  /** Resolves when the database answers within the dependency timeout. */
  ping(): Promise<void>;
  /**
   * Opens up to `connections` connections at once and returns them to the pool idle, so the
   * first burst of calls does not wait for connections being made (each bounded like any other;
   * one that fails is left to be made on demand).
   */
  warm(connections: number): Promise<void>;
  /** Ends the pool: waits at most `timeoutMs` for statements still running (they are bounded anyway). */
  close(timeoutMs?: number): Promise<void>;
}

export interface DatabaseOptions {
  url: string;
  poolMax: number;
  /** Bound on the readiness ping and on request-path statements (DEPENDENCY_TIMEOUT_MS). */
  timeoutMs: number;
  /** Bound on opening a connection; `timeoutMs` by default. */
  connectTimeoutMs?: number;
  /** Bound on one background statement; BACKGROUND_STATEMENT_TIMEOUT_MS by default. */
  backgroundTimeoutMs?: number;
}

/**
 * Long enough for a batch of 500 records or a maintenance batch on a busy server, short enough
 * that a stalled connection is given up within a flush or two.
 */
export const BACKGROUND_STATEMENT_TIMEOUT_MS = 30_000;
/** How long `close()` waits for statements still running before it gives up on them. */
const CLOSE_TIMEOUT_MS = 5_000;

/**
 * Numeric columns (spend, prices) come back as numbers, int8 counts too. Set on this pool's own
 * type table, not pg's global one.
 */
function databaseTypes(): TypeOverrides {
  const types = new TypeOverrides();
  types.setTypeParser(1700, Number);
  types.setTypeParser(20, Number);
  return types;
}

export function openDatabase(options: DatabaseOptions): Database {
  const pool = new Pool({
    connectionString: options.url,
    max: options.poolMax,
    connectionTimeoutMillis: options.connectTimeoutMs ?? options.timeoutMs,
    idleTimeoutMillis: 30_000,
    maxLifetimeSeconds: 30 * 60,
    keepAlive: true,
    types: databaseTypes(),
  });
  // An idle connection failed: the pool drops it and connects anew when needed. Without a listener
  // the pool's 'error' event would crash the process.
  pool.on('error', (error) => {
    if (DIAGNOSTICS.databaseIdleError.hasSubscribers) DIAGNOSTICS.databaseIdleError.publish({ error });
  });
  const view = (scope: 'checkout' | 'statement', timeoutMs: number): Db =>
    new Kysely<Tables>({ dialect: new PostgresDialect({ pool: boundedPool(pool, { scope, timeoutMs }) }) });
  const db = view('checkout', options.timeoutMs);
  const background = view('statement', options.backgroundTimeoutMs ?? BACKGROUND_STATEMENT_TIMEOUT_MS);
  let closing: Promise<void> | undefined;
  return {
    db,
    background,
    ping: async () => {
      await withTimeout(execute(db, 'select 1'), options.timeoutMs, 'database');
    },
    warm: async (connections) => {
      const opened = await Promise.allSettled(Array.from({ length: connections }, () => pool.connect()));
      for (const result of opened) if (result.status === 'fulfilled') result.value.release();
    },
    close: (timeoutMs = CLOSE_TIMEOUT_MS) => {
      closing ??= withTimeout(pool.end(), timeoutMs, 'database close');
      return closing;
    },
  };
}

/** Runs one statement given as text with bind parameters (`$1`...): DDL, or SQL built from constants. */
export function execute<R = Record<string, unknown>>(
  db: Db,
  text: string,
  parameters: readonly unknown[] = [],
): Promise<QueryResult<R>> {
  return db.executeQuery<R>(CompiledQuery.raw(text, [...parameters]));
}

/** Rows an insert, update or delete changed. */
export function affectedRows(result: QueryResult<unknown>): number {
  return Number(result.numAffectedRows ?? 0n);
}
