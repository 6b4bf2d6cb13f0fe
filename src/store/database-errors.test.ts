import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { DependencyTimeoutError, withTimeout } from './database-errors.ts';

/** Holds the main thread, as a burst of calls on a loaded machine does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
}

describe('withTimeout', () => {
  test('regression: an answer that arrived while the process was busy is taken, not timed out', async () => {
    // The stat completes on libuv's thread pool while the main thread is held past the deadline;
    // its callback waits for the loop's poll phase, which runs after the timers.
    const answered = withTimeout(stat(import.meta.filename), 20, 'file system');
    busy(100);
    assert.ok((await answered).isFile());
  });

  test('still fails a call that does not answer', async () => {
    await assert.rejects(withTimeout(new Promise(() => {}), 20, 'database'), DependencyTimeoutError);
  });
});
