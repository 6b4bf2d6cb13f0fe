import assert from 'node:assert/strict';
import { afterEach, beforeEach, mock, test } from 'node:test';
import { CacheUnavailableError } from './cache-store.ts';
import { CommandDeadlines } from './command-deadlines.ts';

const TIMEOUT_MS = 1000;
const CHECK_INTERVAL_MS = 100;

function deadlines(): CommandDeadlines {
  return new CommandDeadlines({
    timeoutMs: TIMEOUT_MS,
    checkIntervalMs: CHECK_INTERVAL_MS,
    now: () => Date.now(),
  });
}

/** The outcome of `promise` once the microtasks queued so far have run. */
async function outcome(
  promise: Promise<unknown>,
): Promise<{ state: 'pending' | 'resolved' | 'rejected'; value?: unknown }> {
  const pending = Symbol('pending');
  const settled = await Promise.race([
    promise.then(
      (value) => ({ state: 'resolved' as const, value }),
      (value: unknown) => ({ state: 'rejected' as const, value }),
    ),
    new Promise<typeof pending>((resolve) => setImmediate(() => resolve(pending))),
  ]);
  return settled === pending ? { state: 'pending' } : settled;
}

const keepError = (error: unknown) => error as Error;

/** The rest of the event loop's turn, where a sweep decides (command-deadlines.ts). */
const turn = () => new Promise((resolve) => setImmediate(resolve));

beforeEach(() => {
  mock.timers.enable({ apis: ['setInterval', 'Date'], now: 0 });
});
afterEach(() => {
  mock.timers.reset();
});

test('settles with the answer of a command that answers in time', async () => {
  const tracker = deadlines();
  assert.equal(await tracker.track(Promise.resolve('OK'), keepError), 'OK');
  const failure = new TypeError('WRONGTYPE');
  await assert.rejects(
    tracker.track(Promise.reject(new Error('raw')), () => failure),
    (error) => error === failure,
  );
  tracker.close();
});

test('fails a command with CacheUnavailableError between the timeout and one check interval after it', async () => {
  const tracker = deadlines();
  const command = Promise.withResolvers<string>();
  const tracked = tracker.track(command.promise, keepError);
  mock.timers.tick(TIMEOUT_MS - CHECK_INTERVAL_MS);
  assert.equal((await outcome(tracked)).state, 'pending', 'not before the timeout');
  mock.timers.tick(CHECK_INTERVAL_MS);
  const settled = await outcome(tracked);
  assert.equal(settled.state, 'rejected');
  assert.ok(settled.value instanceof CacheUnavailableError);
  command.resolve('late');
  assert.equal((await outcome(tracked)).state, 'rejected', 'a late answer changes nothing');
  assert.equal(tracker.size, 0);
  tracker.close();
});

test('a finished command behind a pending one is dropped when the pending one expires', async () => {
  const tracker = deadlines();
  const stuck = Promise.withResolvers<string>();
  const first = tracker.track(stuck.promise, keepError);
  mock.timers.tick(500);
  const second = tracker.track(Promise.resolve('fast'), keepError);
  assert.equal(await second, 'fast');
  mock.timers.tick(CHECK_INTERVAL_MS);
  assert.equal(tracker.size, 2, 'the FIFO is swept from its head only');
  mock.timers.tick(TIMEOUT_MS - 500);
  assert.ok((await outcome(first)).value instanceof CacheUnavailableError);
  assert.equal(tracker.size, 0);
  tracker.close();
});

test('arms one interval for many commands and stops it after an idle interval', async () => {
  const intervals = mock.method(globalThis, 'setInterval');
  const tracker = deadlines();
  await Promise.all(Array.from({ length: 1000 }, (_, i) => tracker.track(Promise.resolve(i), keepError)));
  assert.equal(intervals.mock.callCount(), 1);
  mock.timers.tick(CHECK_INTERVAL_MS); // sweeps the finished commands, after the loop's turn
  await turn();
  mock.timers.tick(CHECK_INTERVAL_MS); // idle: stops
  assert.equal(tracker.size, 0);
  await tracker.track(Promise.resolve('again'), keepError);
  assert.equal(intervals.mock.callCount(), 2, 'the next command arms it again');
  intervals.mock.restore();
  tracker.close();
});

test('keeps expiring in order after the queue is compacted', async () => {
  const tracker = deadlines();
  await Promise.all(Array.from({ length: 1500 }, (_, i) => tracker.track(Promise.resolve(i), keepError)));
  mock.timers.tick(50);
  const stuck = Array.from({ length: 500 }, () =>
    tracker.track(Promise.withResolvers<number>().promise, keepError),
  );
  mock.timers.tick(CHECK_INTERVAL_MS);
  await turn();
  assert.equal(tracker.size, 500);
  mock.timers.tick(TIMEOUT_MS);
  for (const tracked of stuck) assert.ok((await outcome(tracked)).value instanceof CacheUnavailableError);
  assert.equal(tracker.size, 0);
  tracker.close();
});

test('close() fails the commands still pending', async () => {
  const tracker = deadlines();
  const tracked = tracker.track(Promise.withResolvers<string>().promise, keepError);
  tracker.close();
  const settled = await outcome(tracked);
  assert.ok(settled.value instanceof CacheUnavailableError);
  assert.match((settled.value as Error).message, /closed/);
});

test('tells its owner once per check that commands expired, so the connection can be reset', async () => {
  let resets = 0;
  const tracker = new CommandDeadlines({
    timeoutMs: TIMEOUT_MS,
    checkIntervalMs: CHECK_INTERVAL_MS,
    now: () => Date.now(),
    onExpired: () => resets++,
  });
  const lost = [1, 2].map(() =>
    tracker.track(new Promise<string>(() => {}), keepError).catch(() => 'expired'),
  );
  assert.equal(await tracker.track(Promise.resolve('OK'), keepError), 'OK');
  mock.timers.tick(TIMEOUT_MS);
  assert.deepEqual(await Promise.all(lost), ['expired', 'expired']);
  assert.equal(resets, 1, 'one reset for the two commands of the same check');
  mock.timers.tick(CHECK_INTERVAL_MS * 3);
  assert.equal(resets, 1, 'no reset without an expired command');
  tracker.close();
});
