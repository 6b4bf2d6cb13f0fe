import assert from 'node:assert/strict';

/** How often a condition is checked again. */
const POLL_INTERVAL_MS = 25;

/** Calls `attempt` until it answers true or `timeoutMs` has passed; says whether it did. */
async function poll(attempt: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await attempt()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

/**
 * Waits until `check` passes, for what happens asynchronously (pub/sub delivery to another
 * replica, a record written after the answer); throws the last failure when time runs out.
 */
export async function eventually(check: () => Promise<void> | void, timeoutMs = 5_000): Promise<void> {
  let failure: unknown;
  const passed = await poll(async () => {
    try {
      await check();
      return true;
    } catch (error) {
      failure = error;
      return false;
    }
  }, timeoutMs);
  if (!passed) throw failure;
}

/** Waits until `check` answers true; fails naming `what` when it does not in time. A throwing check fails at once. */
export async function waitUntil(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  if (!(await poll(check, timeoutMs))) assert.fail(`not reached in time: ${what}`);
}
