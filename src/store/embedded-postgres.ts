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
