import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { spawnMain } from '../helpers/child.ts';
import { waitForLog } from '../helpers/child-logs.ts';

interface Started {
  /** What the worker's start-up line says its heap runs with. */
  heap: unknown;
  /** The worker's command line, as the kernel has it. */
  workerArgs: string[];
  /** The worker's MALLOC_ARENA_MAX, as the kernel started it. */
  workerArenas: string | undefined;
}

/** Starts an embedded gateway with `env`, waits for the worker's heap line, reads that worker's command line, stops it. */
async function start(env: Record<string, string>): Promise<Started> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sy-heap-'));
  const child = spawnMain(['serve'], {
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_FORMAT: 'json',
    ...env,
  });
  try {
    const line = await waitForLog(child, (logged) => 'workerHeap' in logged, 'the worker heap line', 60_000);
    const workerArgs = readFileSync(`/proc/${line.pid}/cmdline`, 'utf8').split('\0');
    const workerEnv = readFileSync(`/proc/${line.pid}/environ`, 'utf8').split('\0');
    const arenas = workerEnv.find((entry) => entry.startsWith('MALLOC_ARENA_MAX='));
    return { heap: line.workerHeap, workerArgs, workerArenas: arenas?.split('=')[1] };
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
    await rm(dataDir, { recursive: true, force: true });
  }
}

describe('the worker heap (WORKER_SEMI_SPACE_MB, WORKER_INITIAL_OLD_SPACE_MB, WORKER_HEAP_GROWTH_PERCENT, WORKER_MALLOC_ARENAS, WORKER_EXTERNAL_MEMORY_IN_HEAP_LIMIT)', () => {
  it("runs each worker with 16 MiB semi-spaces, a 64 MiB first old-generation limit, V8's own growth, two malloc arenas and memory outside the heap counted against its limit by default, and says so", async () => {
    const { heap, workerArgs, workerArenas } = await start({});
    assert.ok(workerArgs.includes('--max-semi-space-size=16'), workerArgs.join(' '));
    assert.ok(workerArgs.includes('--initial-old-space-size=64'), workerArgs.join(' '));
    assert.equal(workerArenas, '2');
    assert.deepEqual(heap, {
      semiSpaceMb: 16,
      initialOldSpaceMb: 64,
      growthPercent: null,
      mallocArenas: 2,
      externalMemoryInHeapLimit: true,
    });
  });

  it("takes the operator's settings, and leaves a flag set in NODE_OPTIONS to it", async () => {
    const set = await start({
      WORKER_SEMI_SPACE_MB: '8',
      WORKER_INITIAL_OLD_SPACE_MB: '0',
      WORKER_HEAP_GROWTH_PERCENT: '30',
      WORKER_MALLOC_ARENAS: '0',
      WORKER_EXTERNAL_MEMORY_IN_HEAP_LIMIT: 'false',
    });
    assert.ok(set.workerArgs.includes('--max-semi-space-size=8'), set.workerArgs.join(' '));
    assert.ok(
      !set.workerArgs.some((arg) => arg.startsWith('--initial-old-space-size')),
      set.workerArgs.join(' '),
    );
    assert.equal(set.workerArenas, undefined);
    assert.deepEqual(set.heap, {
      semiSpaceMb: 8,
      initialOldSpaceMb: null,
      growthPercent: 30,
      mallocArenas: null,
      externalMemoryInHeapLimit: false,
    });
    // Node.js takes `--max-semi-space-size` in NODE_OPTIONS (and refuses `--heap-growing-percent` there).
    const theirs = await start({ NODE_OPTIONS: '--max-semi-space-size=4', MALLOC_ARENA_MAX: '4' });
    assert.ok(
      !theirs.workerArgs.some((arg) => arg.startsWith('--max-semi-space-size')),
      theirs.workerArgs.join(' '),
    );
    assert.equal(theirs.workerArenas, '4');
    assert.deepEqual(theirs.heap, {
      semiSpaceMb: 4,
      initialOldSpaceMb: 64,
      growthPercent: null,
      mallocArenas: 4,
      externalMemoryInHeapLimit: true,
    });
  });

  it('sets a flag V8 still knows, with which dropped buffers outside the heap start no full collection', async () => {
    // What a worker does at start (server/worker-heap.ts), then 256 buffers of 1 MiB dropped one by one.
    const script = `
      import { setFlagsFromString } from 'node:v8';
      import { constants, PerformanceObserver } from 'node:perf_hooks';
      if (process.argv[1] === 'on') setFlagsFromString('--external-memory-accounted-in-global-limit');
      let full = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
      }).observe({ entryTypes: ['gc'] });
      for (let i = 0; i < 256; i++) {
        Buffer.allocUnsafeSlow(1 << 20)[0] = i;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      console.log(full);`;
    const run = promisify(execFile);
    const collections = async (flag: 'on' | 'off') => {
      const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script, flag]);
      assert.equal(stderr, '', 'V8 knows the flag');
      return Number(stdout);
    };
    const [on, off] = [await collections('on'), await collections('off')];
    assert.ok(off >= 2, `without the flag, external memory starts full collections (${off})`);
    assert.ok(on < off, `with it, fewer: ${on} against ${off}`);
  });

  it('refuses a value out of range with a line naming the variable', async () => {
    const child = spawnMain(['serve'], { WORKER_SEMI_SPACE_MB: 'lots', PORT: '0' });
    const [code] = await once(child, 'exit');
    assert.notEqual(code, 0);
    assert.match(child.output(), /WORKER_SEMI_SPACE_MB must be an integer between 0 and 1024 \(got "lots"\)/);
  });
});
