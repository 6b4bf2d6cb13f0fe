import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readSpendCents, spendFlushFor } from '../../src/limits/spend-statement.ts';
import { SpendWriter } from '../../src/limits/spend-writer.ts';
import { type Database, execute, openDatabase } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { insertVirtualKey } from '../helpers/seed.ts';

describe('spend_cents batched update (real Postgres)', () => {
  let database: TestDatabase;
  let db: Database;
  before(async () => {
    database = await createTestDatabase();
    db = openDatabase({ url: database.url, poolMax: 8, timeoutMs: 5000 });
    await migrate(db.background);
  });
  after(async () => {
    await db.close();
    await database.drop();
  });

  it('adds each delta to its key in one statement and ignores keys that no longer exist', async () => {
    const a = await insertVirtualKey(database.url);
    const b = await insertVirtualKey(database.url);
    const flush = spendFlushFor(db.db);
    await flush(
      [
        { keyId: a.id, cents: 1.25 },
        { keyId: b.id, cents: 0.000123 },
        { keyId: 'key_gone', cents: 7 },
      ],
      'batch-1',
    );
    await flush([{ keyId: a.id, cents: 2 }], 'batch-2');
    assert.equal(await readSpendCents(db.db, a.id), 3.25);
    assert.equal(await readSpendCents(db.db, b.id), 0.000123);
    assert.equal(await readSpendCents(db.db, 'key_gone'), 0);
  });

  it('applies a batch sent again under its id once: a try that timed out but landed is not added twice', async () => {
    const key = await insertVirtualKey(database.url);
    const flush = spendFlushFor(db.db);
    await flush([{ keyId: key.id, cents: 4 }], 'batch-twice');
    await flush([{ keyId: key.id, cents: 4 }], 'batch-twice');
    assert.equal(await readSpendCents(db.db, key.id), 4);
    // Claims older than an hour are pruned by the flushes that follow.
    await execute(
      db.db,
      "update spend_batches set applied_at = now() - interval '2 hours' where id = 'batch-twice'",
    );
    await flush([{ keyId: key.id, cents: 1 }], 'batch-after');
    const left = await execute<{ n: number }>(
      db.db,
      "select count(*)::int as n from spend_batches where id = 'batch-twice'",
    );
    assert.equal(left.rows[0].n, 0);
    assert.equal(await readSpendCents(db.db, key.id), 5);
  });

  it('loses no increment when several writers flush the same keys at once (no deadlock)', async () => {
    const keys = await Promise.all(Array.from({ length: 20 }, () => insertVirtualKey(database.url)));
    const writers = Array.from({ length: 6 }, () => new SpendWriter({ flush: spendFlushFor(db.db) }));
    const expected = new Map<string, number>();
    for (let round = 0; round < 10; round++) {
      writers.forEach((writer, w) => {
        // Each writer touches the keys in a different order; the batch is sorted anyway.
        for (const key of w % 2 === 0 ? keys : [...keys].reverse()) {
          writer.add(key.id, 1);
          expected.set(key.id, (expected.get(key.id) ?? 0) + 1);
        }
      });
      await Promise.all(writers.map((writer) => writer.flush()));
    }
    await Promise.all(writers.map((writer) => writer.close()));
    for (const key of keys) assert.equal(await readSpendCents(db.db, key.id), expected.get(key.id));
  });
});
