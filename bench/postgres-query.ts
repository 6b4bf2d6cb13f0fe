import { Client } from 'pg';

/** Runs one statement on a connection of its own to `url` and returns its rows. */
export async function queryOnce<T>(url: string, text: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}
