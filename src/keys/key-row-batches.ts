import type { Db } from '../store/database.ts';
import type { VirtualKeyRow } from './virtual-key-row.ts';

/** The most key hashes one statement asks for; a larger burst is read in several. */
const MAX_BATCH = 256;

interface Waiter {
  hash: Buffer;
  resolve(row: VirtualKeyRow | undefined): void;
  reject(error: unknown): void;
}

/**
 * Key rows read in batches: the lookups of keys not cached that begin in one turn of the event
 * loop make one statement, not one each. After a start, a burst of calls with keys the process had
 * not seen queued one read per key for the pool's connections, and on a loaded machine the wait ran
 * out the dependency timeout (test/foundation/pool-warm.test.ts). A row is found by its current
 * hash or by the one it replaced (a rotated secret in its grace period).
 */
export class KeyRowBatches {
  readonly #db: Db;
  #pending: Map<string, Waiter[]> | null = null;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * The row whose secret hashes to `hash` now or did before its rotation; undefined when none.
   * `id`: the hash in base64, as the key cache names it.
   */
  rowOf(id: string, hash: Buffer): Promise<VirtualKeyRow | undefined> {
    let batch = this.#pending;
    if (batch === null || batch.size >= MAX_BATCH) {
      const next = new Map<string, Waiter[]>();
      this.#pending = batch = next;
      setImmediate(() => {
        if (this.#pending === next) this.#pending = null;
        void this.#read(next);
      });
    }
    return new Promise((resolve, reject) => {
      const waiters = batch.get(id);
      const waiter = { hash, resolve, reject };
      if (waiters === undefined) batch.set(id, [waiter]);
      else waiters.push(waiter);
    });
  }

  async #read(batch: Map<string, Waiter[]>): Promise<void> {
    const hashes = [...batch.values()].map((waiters) => waiters[0].hash);
    try {
      const rows = await this.#db
        .selectFrom('virtual_keys')
        .selectAll()
        .where((eb) => eb.or([eb('key_hash', 'in', hashes), eb('previous_key_hash', 'in', hashes)]))
        .execute();
      const byHash = new Map<string, VirtualKeyRow>();
      for (const row of rows) {
        if (row.previous_key_hash !== null) byHash.set(row.previous_key_hash.toString('base64'), row);
      }
      // The current hash wins over a replaced one that happens to be the same.
      for (const row of rows) byHash.set(row.key_hash.toString('base64'), row);
      for (const [id, waiters] of batch) for (const waiter of waiters) waiter.resolve(byHash.get(id));
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
    }
  }
}
