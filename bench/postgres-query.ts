import { Client } from 'pg';

type Query = <T>(text: string, values?: readonly unknown[]) => Promise<T[]>;

/** Runs `work` with a connection of its own to `url`, closed when the work ends. */
export async function withConnection<R>(url: string, work: (query: Query) => Promise<R>): Promise<R> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(
      async <T>(text: string, values?: readonly unknown[]) =>
        (await client.query(text, values as unknown[] | undefined)).rows as T[],
    );
  } finally {
    await client.end();
  }
}

/** Runs one statement on a connection of its own to `url` and returns its rows. */
export function queryOnce<T>(url: string, text: string): Promise<T[]> {
  return withConnection(url, (query) => query<T>(text));
}
