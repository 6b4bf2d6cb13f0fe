import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIAGNOSTICS } from '../diagnostics/diagnostics-channels.ts';
import { type SpendDelta, SpendNotWrittenError, SpendWriter } from './spend-writer.ts';

function recorder(failures = 0) {
  const batches: SpendDelta[][] = [];
  const ids: string[] = [];
  let failuresLeft = failures;
  return {
    batches,
    ids,
    flush: async (deltas: readonly SpendDelta[], batchId: string) => {
      ids.push(batchId);
      if (failuresLeft > 0) {
        failuresLeft--;
        throw new Error('database down');
      }
      batches.push([...deltas]);
    },
  };
}

describe('SpendWriter', () => {
  it('sums deltas per key and writes them as one batch sorted by key id', async () => {
    const db = recorder();
    const writer = new SpendWriter({ flush: db.flush });
    writer.add('key_b', 1.5);
    writer.add('key_a', 2);
    writer.add('key_b', 0.25);
    writer.add('key_c', 0);
    assert.equal(writer.pendingFor('key_b'), 1.75);
    await writer.flush();
    assert.deepEqual(db.batches, [
      [
        { keyId: 'key_a', cents: 2 },
        { keyId: 'key_b', cents: 1.75 },
      ],
    ]);
    assert.equal(writer.pendingFor('key_b'), 0);
    await writer.flush();
    assert.equal(db.batches.length, 1, 'nothing pending, nothing written');
  });

  it('sends a failed batch again as it was, under its id, before the spend that came after', async () => {
    const db = recorder(1);
    const reported: string[] = [];
    const stops = [
      DIAGNOSTICS.spendFlushError.subscribe((event) => reported.push(`error, ${event.pendingKeys} pending`)),
      DIAGNOSTICS.spendFlushRecovered.subscribe(() => reported.push('recovered')),
    ];
    const writer = new SpendWriter({ flush: db.flush });
    writer.add('key_a', 3);
    await writer.flush();
    assert.equal(writer.pendingFor('key_a'), 3, 'still pending after the failure');
    writer.add('key_a', 1);
    assert.equal(writer.pendingFor('key_a'), 4);
    await writer.flush();
    await writer.flush();
    for (const stop of stops) stop();
    // A try that timed out may have landed: only the same batch under the same id is safe to send.
    assert.deepEqual(db.batches, [[{ keyId: 'key_a', cents: 3 }], [{ keyId: 'key_a', cents: 1 }]]);
    assert.equal(db.ids[0], db.ids[1], 'the retry names the batch it retries');
    assert.notEqual(db.ids[1], db.ids[2], 'the next batch has its own id');
    assert.deepEqual(reported, ['error, 1 pending', 'recovered']);
  });

  it('counts a batch being written as pending until it lands', async () => {
    let land: () => void = () => {};
    const writer = new SpendWriter({
      flush: () =>
        new Promise<void>((resolve) => {
          land = resolve;
        }),
    });
    writer.add('key_a', 2);
    const flushing = writer.flush();
    writer.add('key_a', 1);
    assert.equal(writer.pendingFor('key_a'), 3);
    land();
    await flushing;
    assert.equal(writer.pendingFor('key_a'), 1);
  });

  it('runs one flush at a time', async () => {
    let running = 0;
    let most = 0;
    const writer = new SpendWriter({
      flush: async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setImmediate(r));
        running--;
      },
    });
    writer.add('key_a', 1);
    await Promise.all([writer.flush(), writer.flush(), writer.flush()]);
    assert.equal(most, 1);
  });

  it('flushes on its timer', async (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const db = recorder();
    const writer = new SpendWriter({ flush: db.flush, intervalMs: 250 });
    writer.start();
    writer.add('key_a', 1);
    t.mock.timers.tick(250);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(db.batches, [[{ keyId: 'key_a', cents: 1 }]]);
    await writer.close();
  });

  it('close() retries, then names what it could not write', async () => {
    const db = recorder(Number.POSITIVE_INFINITY);
    const writer = new SpendWriter({ flush: db.flush });
    writer.add('key_a', 5);
    await assert.rejects(writer.close({ attempts: 2 }), (error: unknown) => {
      assert.ok(error instanceof SpendNotWrittenError);
      assert.deepEqual(error.deltas, [{ keyId: 'key_a', cents: 5 }]);
      return true;
    });
  });

  it('close() writes what is pending', async () => {
    const db = recorder(2);
    const writer = new SpendWriter({ flush: db.flush });
    writer.add('key_a', 5);
    await writer.close({ attempts: 3 });
    assert.deepEqual(db.batches, [[{ keyId: 'key_a', cents: 5 }]]);
  });

  it('close() gives up on a flush that hangs past its deadline', async () => {
    const writer = new SpendWriter({ flush: () => new Promise<void>(() => {}) });
    writer.add('key_a', 5);
    await assert.rejects(writer.close({ timeoutMs: 50 }), SpendNotWrittenError);
  });
});
