import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { test } from 'node:test';
import { CacheUnavailableError } from './cache-store.ts';
import { CommandDeadlines } from './command-deadlines.ts';

/** Holds the main thread, as a burst of calls on a loaded machine does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
}

// Real timers: what is under test is the order of the event loop's phases (the other tests of
// command-deadlines.ts mock the clock).
test('regression: a reply that arrived while the process was busy is taken, not timed out', async () => {
  const tracker = new CommandDeadlines({ timeoutMs: 20, checkIntervalMs: 5 });
  try {
    // The stat completes on libuv's thread pool while the main thread is held past the deadline;
    // its callback waits for the loop's poll phase, which runs after the timers.
    const answered = tracker.track(stat(import.meta.filename), (error) => error as Error);
    busy(100);
    assert.ok((await answered).isFile());
  } finally {
    tracker.close();
  }
});

test('still fails a command that does not answer', async () => {
  const tracker = new CommandDeadlines({ timeoutMs: 20, checkIntervalMs: 5 });
  try {
    await assert.rejects(
      tracker.track(new Promise(() => {}), (error) => error as Error),
      CacheUnavailableError,
    );
  } finally {
    tracker.close();
  }
});
