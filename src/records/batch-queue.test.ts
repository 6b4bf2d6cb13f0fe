import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { waitUntil } from '../../test/helpers/eventually.ts';
import { createLogger } from '../diagnostics/logger.ts';
import { BatchQueue } from './batch-queue.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, logger: createLogger('info', sink) };
}

const connectionRefused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

function queue(write: (items: readonly number[]) => Promise<void>, capacity = 5) {
  const log = capture();
  const q = new BatchQueue<number>({
    name: 'test',
    capacity,
    batchSize: 2,
    flushIntervalMs: 60_000,
    dropReportIntervalMs: 60_000,
    writeTimeoutMs: 1_000,
    write,
    logger: log.logger,
  });
  return { q, ...log };
}

interface Versioned {
  id: string;
  version: string;
  /** When it may be written (the queue's clock is `clock.now`); 0 when omitted. */
  dueAt?: number;
}

/**
 * A queue whose items coalesce by id, as variant B's operations do, on a clock the test moves
 * (or, with `realClock`, on Date.now).
 */
function keyedQueue(
  write: (items: readonly Versioned[]) => Promise<void>,
  capacity = 5,
  options: { flushIntervalMs?: number; realClock?: boolean } = {},
) {
  const log = capture();
  const clock = { now: 0 };
  const q = new BatchQueue<Versioned>({
    name: 'keyed',
    capacity,
    batchSize: 2,
    flushIntervalMs: options.flushIntervalMs ?? 60_000,
    dropReportIntervalMs: 60_000,
    writeTimeoutMs: 1_000,
    keyOf: (item) => item.id,
    dueAt: (item) => item.dueAt ?? 0,
    now: options.realClock ? Date.now : () => clock.now,
    write,
    logger: log.logger,
  });
  return { q, clock, ...log };
}

/** A written batch as `id:version` labels, in order. */
const labels = (items: readonly Versioned[]) => items.map((item) => `${item.id}:${item.version}`);

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('BatchQueue', () => {
  it('writes in batches of batchSize, in order', async () => {
    const batches: number[][] = [];
    const { q } = queue(async (items) => {
      batches.push([...items]);
    });
    for (const n of [1, 2, 3, 4, 5]) q.push(n);
    await q.flush(0);
    assert.deepEqual(batches, [[1, 2], [3, 4], [5]]);
    assert.equal(q.size, 0);
  });

  it('holds records while the database is down and writes them once it is back', async () => {
    let down = true;
    const written: number[] = [];
    const { q } = queue(async (items) => {
      if (down) throw connectionRefused();
      written.push(...items);
    });
    q.push(1);
    q.push(2);
    q.push(3);
    await q.flush(0);
    // The deadline passed with the database down: what was queued is reported lost...
    assert.equal(q.size, 0);
    q.push(4);
    down = false;
    await q.flush(0);
    assert.deepEqual(written, [4]);
  });

  it('keeps the queue across failed background drains (no deadline)', async () => {
    let down = true;
    const written: number[] = [];
    const { q } = queue(async (items) => {
      if (down) throw connectionRefused();
      written.push(...items);
    });
    q.push(1);
    q.push(2);
    await nextTurn(); // the full-batch drain runs and fails
    await nextTurn();
    assert.equal(q.size, 2);
    down = false;
    await q.flush(1_000);
    assert.deepEqual(written, [1, 2]);
  });

  it('drops what exceeds its capacity and reports the count in one line', async () => {
    const { q, lines } = queue(async () => {
      throw connectionRefused();
    }, 3);
    for (let n = 0; n < 10; n += 1) q.push(n);
    assert.equal(q.size, 3);
    await q.flush(0);
    const reports = lines.filter((line) => line.queue === 'test');
    assert.equal(reports.length, 1);
    assert.equal(reports[0].dropped, 10, '7 over capacity, then 3 lost at the deadline');
    assert.equal(reports[0].level, 'warn');
  });

  it('drops only the rows the database refuses, and logs them', async () => {
    const written: number[] = [];
    const { q, lines } = queue(async (items) => {
      if (items.includes(13)) throw Object.assign(new Error('invalid byte sequence'), { code: '22021' });
      written.push(...items);
    });
    for (const n of [12, 13, 14]) q.push(n);
    await q.flush(0);
    assert.deepEqual(written, [12, 14]);
    assert.ok(lines.some((line) => line.rejected === 1));
  });

  it('leaves what arrives during a background write for the next one', async () => {
    const batches: number[][] = [];
    let release: () => void = () => {};
    const { q } = queue(async (items) => {
      batches.push([...items]);
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    q.push(1);
    const writing = q.writeDue();
    await nextTurn();
    q.push(2);
    release();
    await writing;
    assert.deepEqual(batches, [[1]], 'the write took only what was queued when it began');
    assert.equal(q.size, 1);
    await q.writeDue();
    assert.deepEqual(batches, [[1], [2]]);
  });

  it('writes in the background once batchSize new items are queued', async () => {
    const batches: number[][] = [];
    const { q } = queue(async (items) => {
      batches.push([...items]);
    });
    q.push(1);
    await nextTurn();
    assert.deepEqual(batches, []);
    q.push(2);
    await nextTurn();
    await nextTurn();
    assert.deepEqual(batches, [[1, 2]]);
  });

  it('never throws from push', () => {
    const { q } = queue(async () => {
      throw new Error('boom');
    }, 1);
    q.push(1);
    q.push(2);
    q.discard('req_1', new Error('row not built'));
    assert.equal(q.size, 1);
  });

  it('says why a record could not be built, naming its call, in the drop report', async () => {
    const log = capture();
    const q = new BatchQueue<number>({
      name: 'discards',
      capacity: 5,
      batchSize: 2,
      flushIntervalMs: 60_000,
      dropReportIntervalMs: 10,
      writeTimeoutMs: 1_000,
      write: async () => undefined,
      logger: log.logger,
    });
    q.start();
    try {
      q.discard('req_abc', new TypeError("Cannot read properties of undefined (reading 'id')"));
      await waitUntil(async () => log.lines.some((line) => line.queue === 'discards'), 'the drop report');
      const line = log.lines.find((entry) => entry.queue === 'discards');
      assert.equal(line?.dropped, 1);
      assert.deepEqual(line?.notBuilt, {
        requestId: 'req_abc',
        reason: "Cannot read properties of undefined (reading 'id')",
      });
    } finally {
      await q.stop(0);
    }
  });
});

describe('BatchQueue with keyOf', () => {
  it('writes only the newest state of an item pushed twice before a flush, in its first place', async () => {
    const batches: string[][] = [];
    const { q } = keyedQueue(async (items) => {
      batches.push(labels(items));
    });
    q.push({ id: 'a', version: 'started' });
    q.push({ id: 'b', version: 'started' });
    q.push({ id: 'a', version: 'final' });
    assert.equal(q.size, 2);
    await q.flush(0);
    assert.deepEqual(batches, [['a:final', 'b:started']]);
  });

  it('keeps an item replaced while its batch was being written, and writes it next', async () => {
    const batches: string[][] = [];
    let release: () => void = () => {};
    const { q } = keyedQueue(async (items) => {
      batches.push(labels(items));
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    q.push({ id: 'a', version: 'started' });
    const flushing = q.flush(0);
    await nextTurn();
    q.push({ id: 'a', version: 'final' });
    release();
    await flushing;
    assert.deepEqual(batches, [['a:started'], ['a:final']]);
    assert.equal(q.size, 0);
  });

  it('does not count a replacement as new toward a background write', async () => {
    const batches: string[][] = [];
    const { q } = keyedQueue(async (items) => {
      batches.push(labels(items));
    });
    q.push({ id: 'a', version: 'started' });
    q.push({ id: 'a', version: 'final' });
    await nextTurn();
    assert.deepEqual(batches, []);
    q.push({ id: 'b', version: 'final' });
    await nextTurn();
    await nextTurn();
    assert.deepEqual(batches, [['a:final', 'b:final']]);
  });

  it('leaves an item queued in its place until it is due; the shutdown flush writes it anyway', async () => {
    const batches: string[][] = [];
    const { q, clock } = keyedQueue(async (items) => {
      batches.push(labels(items));
    });
    q.push({ id: 'a', version: 'started', dueAt: 1_000 });
    q.push({ id: 'b', version: 'final' });
    await q.writeDue();
    assert.deepEqual(batches, [['b:final']]);
    q.push({ id: 'c', version: 'final' });
    clock.now = 1_000;
    await q.writeDue();
    assert.deepEqual(batches[1], ['a:started', 'c:final'], 'due now, and still first');
    q.push({ id: 'd', version: 'started', dueAt: 5_000 });
    await q.writeDue();
    assert.equal(batches.length, 2);
    await q.flush(0);
    assert.deepEqual(batches[2], ['d:started']);
    assert.equal(q.size, 0);
  });

  it('writes a held item at its due time, not at the first tick after it (a start row before a SIGKILL)', async () => {
    const batches: string[][] = [];
    // The first tick comes after the test's wait: only the due times can write in time.
    const { q } = keyedQueue(async (items) => void batches.push(labels(items)), 5, {
      flushIntervalMs: 4_000,
      realClock: true,
    });
    q.start();
    const pushedAt = Date.now();
    q.push({ id: 'a', version: 'started', dueAt: pushedAt + 100 });
    q.push({ id: 'b', version: 'started', dueAt: pushedAt + 200 });
    q.push({ id: 'c', version: 'final' });
    // 'a' at its due time, 'b' a quarter interval after that write began (1 s), both before the tick.
    await waitUntil(async () => batches.flat().length >= 3, 'both start rows written', 3_000);
    assert.deepEqual(batches.flat().sort(), ['a:started', 'b:started', 'c:final']);
    await q.stop(1_000);
  });

  it('takes a replacement when full (it needs no room) and drops a new key', async () => {
    const { q, lines } = keyedQueue(async () => {
      throw connectionRefused();
    }, 1);
    q.push({ id: 'a', version: 'started' });
    q.push({ id: 'a', version: 'final' });
    q.push({ id: 'b', version: 'started' });
    assert.equal(q.size, 1);
    await q.flush(0);
    const [report] = lines.filter((line) => line.queue === 'keyed');
    assert.equal(report.dropped, 2, 'b over capacity, then a lost at the deadline');
  });
});
