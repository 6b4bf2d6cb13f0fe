import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { lockDataDir } from './data-dir-lock.ts';

export interface EmbeddedPostgres {
  /** A postgres:// URL for the same driver the server uses against a real Postgres. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The embedded default (DESIGN.md section 1): PGlite in `<dataDir>/db`, served on a loopback
 * socket by pglite-socket so pg and the same SQL run as against a real server. The
 * multiplexer keeps each transaction whole across the pool's connections. The data directory is
 * locked first (data-dir-lock.ts): a second gateway on it refuses to start.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  maxConnections: number,
): Promise<EmbeddedPostgres> {
  const directory = join(dataDir, 'db');
  await mkdir(directory, { recursive: true });
  const lock = lockDataDir(dataDir);
  try {
    const pglite = await PGlite.create(directory);
    const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0, maxConnections });
    await server.start();
    const address = server.getServerConn();
    return {
      url: `postgres://postgres@${address}/postgres`,
      close: async () => {
        await server.stop();
        await pglite.close();
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** True when `<dataDir>/db` holds a database (PGlite has run initdb there). */
export function embeddedDatabaseExists(dataDir: string): boolean {
  return existsSync(join(dataDir, 'db', 'PG_VERSION'));
}

/**
 * Creates the embedded database (initdb, the slowest step of a first run) and closes it, under the
 * data directory's lock: `npm start` does it while it builds (scripts/prestart.ts), so the server
 * only reopens it. Migrations stay the server's.
 */
export async function createEmbeddedDatabase(dataDir: string): Promise<void> {
  const directory = join(dataDir, 'db');
  await mkdir(directory, { recursive: true });
  const lock = lockDataDir(dataDir);
  try {
    await (await PGlite.create(directory)).close();
  } finally {
    lock.release();
  }
}
