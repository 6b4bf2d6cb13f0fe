import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeadlineQueue } from './deadline-queue.ts';

describe('DeadlineQueue', () => {
  it('expires the pending entries due, oldest first, skips the settled ones, and names the next deadline', () => {
    const queue = new DeadlineQueue<string>();
    const a = queue.add(10, 'a');
    queue.add(20, 'b');
    queue.add(30, 'c');
    assert.equal(queue.settle(a), true);
    assert.equal(queue.settle(a), false, 'an entry settles once');
    const expired: string[] = [];
    assert.equal(
      queue.expireDue(25, (value) => expired.push(value)),
      30,
    );
    assert.deepEqual(expired, ['b']);
    assert.equal(queue.pending, 1);
    assert.equal(
      queue.expireDue(30, (value) => expired.push(value)),
      null,
    );
    assert.deepEqual(expired, ['b', 'c']);
    assert.equal(queue.size, 0);
  });

  // WallBound's first FIFO dropped finished entries only when every call had finished: under a
  // load that always has a call running, it grew by one entry per call for good.
  it('stays bounded when it never empties: finished entries before its head are compacted away', () => {
    const queue = new DeadlineQueue<number>();
    let running = queue.add(1, 0);
    for (let call = 1; call <= 100_000; call++) {
      const next = queue.add(call + 1, call);
      queue.settle(running);
      running = next;
      queue.expireDue(0, () => assert.fail('nothing is due'));
    }
    assert.equal(queue.pending, 1);
    assert.ok(queue.size <= 2048, `${queue.size} entries kept for one running call`);
  });

  it('hands every pending entry to clear, once', () => {
    const queue = new DeadlineQueue<string>();
    queue.add(1, 'a');
    queue.settle(queue.add(2, 'b'));
    queue.add(3, 'c');
    const ended: string[] = [];
    queue.clear((value) => ended.push(value));
    queue.clear((value) => ended.push(value));
    assert.deepEqual(ended, ['a', 'c']);
    assert.equal(queue.pending, 0);
    assert.equal(queue.size, 0);
  });
});
