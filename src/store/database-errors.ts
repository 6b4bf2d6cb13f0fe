/**
 * Races a dependency call with a timer, so a dead peer cannot hold a caller for a driver's long
 * timeout. The timer's rejection waits for the rest of the event loop's turn (`setImmediate`): a
 * busy process runs its timers before it reads the sockets, so an answer that arrived in time but
 * was not read yet lost to the timer, and a burst of calls on a loaded machine was answered 503
 * though the database had answered them all (test/foundation/pool-warm.test.ts).
 */
export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    const expire = () => reject(new DependencyTimeoutError(what, timeoutMs));
    timer = setTimeout(() => setImmediate(expire), timeoutMs);
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

/**
 * The database could not be reached or its connection failed (refused, reset, closed, or no
 * connection free within the bound), as opposed to the database refusing a statement.
 */
export class DatabaseUnavailableError extends Error {
  /** The socket's or the driver's code, when it has one (ECONNREFUSED, ...). */
  readonly code: string | undefined;
  /** The driver's message alone: its error carries the client, which a log must not serialize. */
  readonly reason: string;

  constructor(cause: unknown) {
    const reason = (cause as Error)?.message ?? String(cause);
    super(`database unavailable: ${reason}`);
    this.name = 'DatabaseUnavailableError';
    this.reason = reason;
    const code = (cause as { code?: unknown } | null)?.code;
    this.code = typeof code === 'string' ? code : undefined;
  }
}

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  // Postgres itself going away: admin_shutdown, crash_shutdown, cannot_connect_now.
  '57P01',
  '57P02',
  '57P03',
]);

/** True for errors that mean "the database is unreachable", as opposed to a bad query. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DependencyTimeoutError || error instanceof DatabaseUnavailableError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONNECTION_ERROR_CODES.has(code);
}

/**
 * SQLSTATEs of a value the database cannot hold as text: a NUL character in a string
 * (`22021` character_not_in_repertoire; `22P05` untranslatable_character for a `\u0000` in
 * JSON). They come from what the client sent (an id, a field), so they are its error.
 */
const UNSTORABLE_TEXT_CODES: ReadonlySet<string> = new Set(['22021', '22P05']);

export function isUnstorableText(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNSTORABLE_TEXT_CODES.has(code);
}

/**
 * The database of DATABASE_URL could not be reached or refused the connection at start: one line
 * naming the variable and where it points, never its password.
 */
export class DatabaseConnectError extends Error {
  constructor(url: string, cause: unknown) {
    const reason = cause instanceof DatabaseUnavailableError ? cause.reason : (cause as Error)?.message;
    super(
      `cannot connect to the database of DATABASE_URL (${withoutPassword(url)}): ${reason ?? String(cause)}`,
    );
    this.name = 'DatabaseConnectError';
  }
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'an unparsable URL';
  }
}

/** True when a statement broke a foreign key (SQLSTATE 23503): it named a row that does not exist, or one still referenced. */
export function isForeignKeyViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23503';
}

/**
 * The database's schema is older than this build's (migrate.ts, assertSchemaCurrent). Here rather
 * than beside the migrations so that the entry point can name it without loading Kysely and the
 * driver into the cluster primary, which never opens the database.
 */
export class SchemaBehindError extends Error {
  constructor(current: number, needed: number) {
    super(
      `database schema is at version ${current} but this build needs ${needed}: run \`npm run migrate\` before starting the server`,
    );
    this.name = 'SchemaBehindError';
  }
}
