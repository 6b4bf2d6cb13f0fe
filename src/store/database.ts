import { Kysely } from 'kysely';
import { PostgresJSDialect } from 'kysely-postgres-js';
import postgres from 'postgres';
import type { Tables } from './tables.ts';

export type Sql = postgres.Sql;
export type Db = Kysely<Tables>;

export interface Database {
  readonly sql: Sql;
  readonly db: Db;
  /** Resolves when the database answers within the dependency timeout. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  url: string;
  poolMax: number;
  /** Bound on connecting and on the readiness ping (SPEC.md cross-cutting rule 2: fail fast). */
  timeoutMs: number;
}

/** Seconds queries still running at shutdown get before their connections are closed. */
const CLOSE_TIMEOUT_SECONDS = 5;

export function openDatabase(options: DatabaseOptions): Database {
  const sql = postgres(options.url, {
    max: options.poolMax,
    connect_timeout: Math.max(1, Math.ceil(options.timeoutMs / 1000)),
    idle_timeout: 30,
    max_lifetime: 60 * 30,
    onnotice: () => {},
    // Numeric columns (spend, prices) come back as numbers; int8 counts too.
    types: { numeric: { to: 1700, from: [1700, 20], serialize: String, parse: Number } },
  });
  const db = new Kysely<Tables>({ dialect: new PostgresJSDialect({ postgres: sql }) });
  return {
    sql,
    db,
    ping: async () => {
      await withTimeout(sql`select 1`.execute(), options.timeoutMs, 'database');
    },
    close: async () => {
      // Bounded: a connection broken by an outage would otherwise hold end() forever.
      await sql.end({ timeout: CLOSE_TIMEOUT_SECONDS });
      await db.destroy();
    },
  };
}

/** Races a dependency call with a timer, so a dead peer cannot hold a caller for a driver's long timeout. */
export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DependencyTimeoutError(what, timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export class DependencyTimeoutError extends Error {
  constructor(what: string, timeoutMs: number) {
    super(`${what} did not answer within ${timeoutMs} ms`);
    this.name = 'DependencyTimeoutError';
  }
}

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  // Postgres itself going away: admin_shutdown, crash_shutdown, cannot_connect_now.
  '57P01',
  '57P02',
  '57P03',
]);

/** True for errors that mean "the database is unreachable", as opposed to a bad query. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DependencyTimeoutError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONNECTION_ERROR_CODES.has(code);
}
