import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { ConfigError } from '../errors/config-error.ts';

/** The lock file in DATA_DIR; PGlite's own files are under `db/`. */
const LOCK_FILE = 'gateway.lock';
/** SQLite's "database is locked". */
const SQLITE_BUSY = 5;

export interface DataDirLock {
  release(): void;
}

/**
 * Makes this process the only gateway on `dataDir`: PGlite has no lock of its own, and two
 * processes on one directory each believe their writes landed. The lock is SQLite's exclusive
 * lock on an empty database file, an fcntl lock the kernel drops when the process ends, however
 * it ends: a SIGKILLed gateway leaves no stale lock behind, and no pid is guessed at (pids repeat
 * across restarts and containers). Throws ConfigError naming the directory when it is taken.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const lock = new DatabaseSync(join(dataDir, LOCK_FILE), { timeout: 0 });
  try {
    lock.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { errcode?: number }).errcode !== SQLITE_BUSY) throw error;
    throw new ConfigError(
      `DATA_DIR ${resolve(dataDir)} is in use by another running gateway: stop it, or give this one its own DATA_DIR`,
    );
  }
  return { release: () => lock.close() };
}
