import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyHeapGrowth, flagValue, workerEnv, workerExecArgv } from './worker-heap.ts';

const DEFAULTS = {
  semiSpaceMb: 16,
  initialOldSpaceMb: 64,
  growthPercent: 30,
  mallocArenas: 2,
  externalMemoryInHeapLimit: true,
};

describe('flagValue', () => {
  it('reads --flag=value, --flag value and V8 underscores; the command line wins over NODE_OPTIONS', () => {
    assert.equal(flagValue('--max-semi-space-size', ['--max-semi-space-size=8'], undefined), '8');
    assert.equal(flagValue('--max-semi-space-size', ['--max-semi-space-size', '4'], undefined), '4');
    assert.equal(flagValue('--max-semi-space-size', ['--max_semi_space_size=2'], undefined), '2');
    assert.equal(
      flagValue('--max-semi-space-size', [], '--enable-source-maps --max-semi-space-size=32'),
      '32',
    );
    assert.equal(
      flagValue('--max-semi-space-size', ['--max-semi-space-size=8'], '--max-semi-space-size=32'),
      '8',
    );
    assert.equal(
      flagValue('--max-semi-space-size', ['--max-semi-space-size-x=1', '--import', 'x'], ''),
      undefined,
    );
  });
});

describe('workerExecArgv', () => {
  it("adds the young generation's bound and the old generation's first limit to the primary's own options", () => {
    assert.deepEqual(workerExecArgv(DEFAULTS, ['--enable-source-maps'], undefined), [
      '--enable-source-maps',
      '--max-semi-space-size=16',
      '--initial-old-space-size=64',
    ]);
  });

  it("leaves the operator's values, on the command line or in NODE_OPTIONS, and adds none at 0", () => {
    assert.deepEqual(workerExecArgv(DEFAULTS, ['--max-semi-space-size=64'], undefined), [
      '--max-semi-space-size=64',
      '--initial-old-space-size=64',
    ]);
    assert.deepEqual(workerExecArgv(DEFAULTS, ['--initial_old_space_size=200'], '--max-semi-space-size=4'), [
      '--initial_old_space_size=200',
    ]);
    assert.deepEqual(
      workerExecArgv({ ...DEFAULTS, semiSpaceMb: 0, initialOldSpaceMb: 0 }, ['--trace-warnings'], undefined),
      ['--trace-warnings'],
    );
  });
});

describe('applyHeapGrowth', () => {
  it("reports the worker's young generation and the growth it set", () => {
    assert.deepEqual(
      applyHeapGrowth(DEFAULTS, ['--max-semi-space-size=16', '--initial-old-space-size=64'], {}),
      {
        semiSpaceMb: 16,
        initialOldSpaceMb: 64,
        growthPercent: 30,
        mallocArenas: null,
        externalMemoryInHeapLimit: true,
      },
    );
    assert.deepEqual(applyHeapGrowth(DEFAULTS, ['--max-semi-space-size=16'], {}), {
      semiSpaceMb: 16,
      initialOldSpaceMb: null,
      growthPercent: 30,
      mallocArenas: null,
      externalMemoryInHeapLimit: true,
    });
  });

  it("keeps the operator's growth, and reports V8's own at 0, the operator's 0 included", () => {
    assert.deepEqual(applyHeapGrowth(DEFAULTS, [], { NODE_OPTIONS: '--heap-growing-percent=50' }), {
      semiSpaceMb: null,
      initialOldSpaceMb: null,
      growthPercent: 50,
      mallocArenas: null,
      externalMemoryInHeapLimit: true,
    });
    assert.deepEqual(applyHeapGrowth(DEFAULTS, ['--max-semi-space-size=0', '--heap-growing-percent=0'], {}), {
      semiSpaceMb: null,
      initialOldSpaceMb: null,
      growthPercent: null,
      mallocArenas: null,
      externalMemoryInHeapLimit: true,
    });
    assert.deepEqual(
      applyHeapGrowth(
        {
          semiSpaceMb: 0,
          initialOldSpaceMb: 0,
          growthPercent: 0,
          mallocArenas: 0,
          externalMemoryInHeapLimit: false,
        },
        [],
        {},
      ),
      {
        semiSpaceMb: null,
        initialOldSpaceMb: null,
        growthPercent: null,
        mallocArenas: null,
        externalMemoryInHeapLimit: false,
      },
    );
  });

  it("counts memory outside the heap against its limit unless the setting or the worker's command line says not", () => {
    assert.equal(applyHeapGrowth(DEFAULTS, [], {}).externalMemoryInHeapLimit, true);
    const off = { ...DEFAULTS, externalMemoryInHeapLimit: false };
    assert.equal(applyHeapGrowth(off, [], {}).externalMemoryInHeapLimit, false);
    assert.equal(
      applyHeapGrowth(off, ['--external_memory_accounted_in_global_limit'], {}).externalMemoryInHeapLimit,
      true,
    );
    assert.equal(
      applyHeapGrowth(DEFAULTS, ['--no-external-memory-accounted-in-global-limit'], {})
        .externalMemoryInHeapLimit,
      false,
    );
    assert.equal(
      applyHeapGrowth(DEFAULTS, ['--noexternal_memory_accounted_in_global_limit'], {})
        .externalMemoryInHeapLimit,
      false,
    );
    assert.equal(
      applyHeapGrowth(
        DEFAULTS,
        ['--no-external-memory-accounted-in-global-limit', '--external-memory-accounted-in-global-limit'],
        {},
      ).externalMemoryInHeapLimit,
      true,
    );
  });

  it('reports the malloc arenas its environment bounds', () => {
    assert.equal(applyHeapGrowth(DEFAULTS, [], { MALLOC_ARENA_MAX: '2' }).mallocArenas, 2);
    assert.equal(applyHeapGrowth(DEFAULTS, [], { MALLOC_ARENA_MAX: '0' }).mallocArenas, null);
  });
});

describe('workerEnv', () => {
  it("bounds the workers' malloc arenas, unless the operator's environment does or the setting is 0", () => {
    assert.deepEqual(workerEnv(DEFAULTS, {}), { MALLOC_ARENA_MAX: '2' });
    assert.deepEqual(workerEnv({ ...DEFAULTS, mallocArenas: 4 }, { PATH: '/bin' }), {
      MALLOC_ARENA_MAX: '4',
    });
    assert.deepEqual(workerEnv(DEFAULTS, { MALLOC_ARENA_MAX: '8' }), {});
    assert.deepEqual(workerEnv({ ...DEFAULTS, mallocArenas: 0 }, {}), {});
  });
});
