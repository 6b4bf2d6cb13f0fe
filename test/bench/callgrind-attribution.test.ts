import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { byOrigin, originOf, PerfMap, selfPerCall, windowsOf } from '../../bench/callgrind-attribution.ts';

const MAP = new PerfMap(
  [
    '3f00 40 JS:*topLevelMembers file:///work/main/dist/formats/json-members.js:153:32',
    '3000 100 JS:^onHeaders /work/main/node_modules/undici/lib/dispatcher/client-h1.js:1:1',
    'not a line',
  ].join('\n'),
);

/** A dump whose JIT code is named by address, as callgrind names it, with each function's self cost. */
function dump(costs: Record<string, number>): string {
  const blocks = Object.entries(costs).map(([name, cost], i) => `fn=(${i + 1}) ${name}\n1 ${cost}\n`);
  return `events: Ir\n\n${blocks.join('\n')}`;
}

describe('callgrind attribution', () => {
  it('names JIT code by the perf map and leaves other names as they are', () => {
    assert.equal(
      MAP.nameOf('0x3f10'),
      'JS:*topLevelMembers file:///work/main/dist/formats/json-members.js:153:32',
    );
    assert.equal(
      MAP.nameOf('0x3000'),
      'JS:^onHeaders /work/main/node_modules/undici/lib/dispatcher/client-h1.js:1:1',
    );
    assert.equal(MAP.nameOf('0x3f40'), '0x3f40', 'past the end of the last range');
    assert.equal(MAP.nameOf('0x2fff'), '0x2fff', 'before the first range');
    assert.equal(MAP.nameOf('Builtins_LoadIC'), 'Builtins_LoadIC');
  });

  it('takes the 2N window less the N window over N calls, summed over repeats, one line per function', () => {
    const first = dump({ '0x3f00': 1_000, Builtins_LoadIC: 5_000 });
    const second = dump({ '0x3f00': 3_000, '0x3f20': 200, Builtins_LoadIC: 9_000 });
    const perCall = selfPerCall(
      [
        [first, second],
        [first, second],
      ],
      100,
      MAP,
    );
    // The two addresses are one function at two tiers' code: one line, its marks dropped.
    assert.equal(perCall.get('JS:topLevelMembers file:///work/main/dist/formats/json-members.js:153:32'), 22);
    assert.equal(perCall.get('Builtins_LoadIC'), 40);
  });

  it("tells the gateway's folders, packages, Node's modules, V8's parts and the rest apart", () => {
    assert.equal(
      originOf('JS:topLevelMembers file:///work/main/dist/formats/json-members.js:1:1'),
      'switchyard formats',
    );
    assert.equal(originOf('JS:run file:///work/main/src/pipeline/stage.ts:1:1'), 'switchyard pipeline');
    assert.equal(originOf('JS:main file:///work/main/dist/main.js:3:1'), 'switchyard main');
    assert.equal(originOf('JS:parse file:///work/main/node_modules/zod/v4/core/schemas.js:1:1'), 'zod');
    assert.equal(
      originOf('JS:write /work/main/node_modules/@redis/client/dist/lib/client/socket.js:1:1'),
      '@redis/client',
    );
    assert.equal(originOf('JS:read node:internal/streams/readable:656:35'), 'node:internal/streams');
    assert.equal(originOf('JS:emit node:events:489:44'), 'node:events');
    assert.equal(originOf('Builtins_StringAdd_CheckNone'), 'V8 builtins');
    assert.equal(
      originOf('v8::internal::compiler::GraphReducer::Reduce(v8::internal::compiler::Node*)'),
      'V8 compiler (other threads)',
    );
    assert.equal(
      originOf('v8::internal::Scavenger::ScavengePage(v8::internal::MutablePageMetadata*)'),
      'garbage collector',
    );
    assert.equal(originOf('__memcpy_avx_unaligned_erms'), 'native (V8 runtime, Node.js C++, libc)');
    assert.deepEqual(
      byOrigin(
        new Map([
          ['Builtins_A', 2],
          ['JS:x node:events:1:1', 5],
          ['Builtins_B', 4],
        ]),
      ),
      [
        ['V8 builtins', 6],
        ['node:events', 5],
      ],
    );
  });

  it("finds (b) in the proxy's dumps and (c), then (d), in the worker's, which holds twice as many", () => {
    const proxy = ['p.1', 'p.2', 'p.3', 'p.4'];
    const worker = ['w.1', 'w.2', 'w.3', 'w.4', 'w.5', 'w.6', 'w.7', 'w.8'];
    const dumps = new Map([
      [20, worker],
      [10, proxy],
    ]);
    assert.deepEqual(windowsOf(dumps, 'b'), {
      pid: 10,
      pairs: [
        ['p.1', 'p.2'],
        ['p.3', 'p.4'],
      ],
    });
    assert.deepEqual(windowsOf(dumps, 'c'), {
      pid: 20,
      pairs: [
        ['w.1', 'w.2'],
        ['w.3', 'w.4'],
      ],
    });
    assert.deepEqual(windowsOf(dumps, 'd'), {
      pid: 20,
      pairs: [
        ['w.5', 'w.6'],
        ['w.7', 'w.8'],
      ],
    });
    assert.throws(() => windowsOf(dumps, 'c', 30), /no windows/);
  });
});
