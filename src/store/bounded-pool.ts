import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { DatabaseError, type Pool, type PoolClient } from 'pg';
import { DatabaseUnavailableError, DependencyTimeoutError, withTimeout } from './database-errors.ts';

/**
 * How long the statements of one checkout may take:
 * - `checkout`: one deadline for waiting for a connection and every statement run on it (the
 *   request path: a call ends within the bound whatever it asks of the database);
 * - `statement`: each statement its own bound (background writes and maintenance).
 */
export type TimeoutScope = 'checkout' | 'statement';

export interface BoundedPoolOptions {
  timeoutMs: number;
  scope: TimeoutScope;
}

/**
 * A view of one pg pool for Kysely's PostgresDialect in which no statement can hang. pg bounds
 * connecting (`connectionTimeoutMillis`) but not a statement on a connection that stopped
 * answering: bytes silently dropped leave the query pending forever, and the next user of that
 * connection would queue behind it. So each statement races a timer; a connection whose statement
 * overran, or whose socket failed, is released as broken, and pg destroys its socket instead of
 * pooling it again. Several views share one pool; `end` is the pool owner's (Database.close).
 */
export function boundedPool(pool: Pool, options: BoundedPoolOptions): PostgresPool {
  return {
    connect: async () => {
      const deadline = options.scope === 'checkout' ? Date.now() + options.timeoutMs : undefined;
      let client: PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw error instanceof DatabaseError ? error : new DatabaseUnavailableError(error);
      }
      return new BoundedClient(client, options.timeoutMs, deadline);
    },
    end: async () => {},
  };
}

class BoundedClient implements PostgresPoolClient {
  readonly #client: PoolClient;
  readonly #timeoutMs: number;
  readonly #deadline: number | undefined;
  /** Why the connection cannot be used again; set, it is destroyed on release. */
  #broken: Error | undefined;
  /**
   * pg emits a socket's failure as an 'error' event on the client; while it is checked out the
   * pool listens no more, and an unheard 'error' event would end the process.
   */
  readonly #onError = (error: Error) => {
    this.#broken ??= new DatabaseUnavailableError(error);
  };

  constructor(client: PoolClient, timeoutMs: number, deadline: number | undefined) {
    this.#client = client;
    this.#timeoutMs = timeoutMs;
    this.#deadline = deadline;
    client.on('error', this.#onError);
  }

  // Kysely's client interface also declares a cursor overload, which this gateway never uses.
  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query(): never;
  async query<R>(sql?: string, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
    if (this.#broken !== undefined) throw this.#broken;
    const timeoutMs =
      this.#deadline === undefined ? this.#timeoutMs : Math.max(1, this.#deadline - Date.now());
    const pending = this.#client.query(sql as string, parameters as unknown[]);
    try {
      return (await withTimeout(pending, timeoutMs, 'database')) as unknown as PostgresQueryResult<R>;
    } catch (error) {
      if (error instanceof DependencyTimeoutError) {
        // The statement may still end, or fail when its socket is destroyed: already answered.
        pending.catch(() => {});
        this.#broken = error;
      }
      throw this.#broken ?? error;
    }
  }

  release(): void {
    this.#client.off('error', this.#onError);
    // With an error, the pool removes the client; pg ends a client with a query still pending by
    // destroying its socket, so nothing waits on a peer that does not answer.
    this.#client.release(this.#broken);
  }
}
