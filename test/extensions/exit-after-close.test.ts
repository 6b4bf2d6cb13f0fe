import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const FIXTURE = fileURLToPath(new URL('./fixtures/exit-after-close.ts', import.meta.url));
const RUNS = 24;
const AT_ONCE = 4;

/** The fixture's exit: its status, or the signal that ended it, with what it printed. */
async function runFixture(): Promise<{
  status: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}> {
  const child = spawn(process.execPath, [FIXTURE], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  const [status, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  return { status, signal, output };
}

// Regression: isolated-vm tears a disposed isolate down on a thread of its own, and a process that
// exited right after disposing one crashed (a segfault or an isolated-vm assertion instead of
// status 0) in about one exit of five. A worker exits right after its shutdown, which closes the
// extensions; closing now waits for the teardown. The crash is a race, so one exit proves little:
// the fixture exits RUNS times, and each must end with status 0.
describe('a process that exits right after closing the extensions', () => {
  it(`exits with status 0, ${RUNS} times of ${RUNS}`, async () => {
    const failures: string[] = [];
    for (let started = 0; started < RUNS; started += AT_ONCE) {
      const batch = await Promise.all(Array.from({ length: AT_ONCE }, runFixture));
      for (const { status, signal, output } of batch) {
        if (status !== 0) failures.push(`status ${status}, signal ${signal}: ${output.slice(-300)}`);
      }
    }
    assert.deepEqual(failures, []);
  });
});
