import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { admin } from '../helpers/admin-api.ts';
import {
  answerText,
  chat,
  deleteExtension,
  type ExtensionsRig,
  extensionState,
  type RecordedRun,
  recordedRuns,
  startRig,
} from './support.ts';

function runOf(runs: RecordedRun[], id: string): RecordedRun {
  const run = runs.find((candidate) => candidate.extensionId === id);
  assert.ok(run !== undefined, `${id} ran: ${JSON.stringify(runs)}`);
  return run;
}

/** Each misbehaviour picked by the first word of the prompt; the extensions apply to `gpt` only. */
const MISBEHAVING = `export function beforeUpstream(call) {
  const text = call.body.messages[0].content;
  if (text.startsWith('loop')) { for (;;) {} }
  if (text.startsWith('throw')) throw new Error('deliberate');
  if (text.startsWith('huge')) return { body: { ...call.body, padding: 'x'.repeat(2e6) } };
  if (text.startsWith('hang')) return new Promise(() => {});
  if (text.startsWith('proxy')) {
    // Every trap answers with the proxy itself, its prototype included: a cycle to whoever walks it.
    const p = new Proxy(new Error('x'), { get: () => p, getPrototypeOf: () => p, ownKeys: () => ['stack'],
      getOwnPropertyDescriptor: () => ({ value: p, configurable: true, enumerable: true, writable: true }) });
    if (text.startsWith('proxy async')) return (async () => { throw p; })();
    throw p;
  }
  if (text.startsWith('deep')) {
    const root = {};
    let node = root;
    for (let i = 0; i < 5000; i++) node = node.x = {};
    return { body: { ...call.body, metadata: root } };
  }
}`;

/** Its own extension, with time enough that the heap limit, not the clock, stops it on a loaded machine. */
const HOARDER = `export function beforeUpstream(call) {
  if (!call.body.messages[0].content.startsWith('memory')) return;
  const hoard = [];
  for (;;) hoard.push(new Array(1e6).fill(hoard.length));
}`;

describe('extension containment', () => {
  let rig: ExtensionsRig;
  before(async () => {
    // A small answer bound makes a 2 MB hook result "huge" without a huge heap.
    rig = await startRig({
      env: { EXTENSION_BREAKER_THRESHOLD: '1000', UPSTREAM_MAX_ANSWER_BYTES: '1048576' },
    });
    await admin(rig.gw, 'POST', '/extensions', {
      id: 'misbehaving',
      models: ['gpt'],
      limits: { timeoutMs: 400, memoryMb: 32 },
      source: MISBEHAVING,
    });
    await admin(rig.gw, 'POST', '/extensions', {
      id: 'hoarder',
      models: ['gpt'],
      limits: { timeoutMs: 5_000, memoryMb: 16 },
      source: HOARDER,
    });
  });
  after(async () => {
    await deleteExtension(rig.gw, 'misbehaving');
    await deleteExtension(rig.gw, 'hoarder');
    await rig.close();
  });

  /** The call succeeds (the extension is not critical), its hook failed for `reason`, and the extension still runs the next call. */
  async function containedFailure(prompt: string, reason: RegExp, id = 'misbehaving'): Promise<void> {
    const answer = await chat(rig, prompt);
    assert.equal(answer.status, 200);
    assert.equal(answerText(answer.body), `echo: ${prompt}`, 'the body the client sent went upstream');
    const run = runOf(await recordedRuns(rig.gw, answer.headers.get('x-request-id') ?? ''), id);
    assert.equal(run.outcome, 'failed');
    assert.match(run.failure ?? '', reason);
    assert.match((await extensionState(rig.gw, id)).lastFailure?.reason ?? '', reason);
    const next = await chat(rig, 'fine');
    assert.equal(next.status, 200);
    const ok = runOf(await recordedRuns(rig.gw, next.headers.get('x-request-id') ?? ''), id);
    assert.equal(ok.outcome, 'continue', 'the extension runs again on the next call');
  }

  it('cuts an endless loop at its limit while other calls keep flowing', async () => {
    const started = performance.now();
    const looping = chat(rig, 'loop forever');
    const others = await Promise.all(
      Array.from({ length: 5 }, (_, i) => chat(rig, `other ${i}`, { model: 'claude', max_tokens: 10 })),
    );
    assert.ok(
      others.every((answer) => answer.status === 200),
      'the other calls were served',
    );
    const looped = await looping;
    assert.equal(looped.status, 200);
    assert.ok(performance.now() - started < 5_000, 'the loop was cut, not waited out');
    const run = runOf(await recordedRuns(rig.gw, looped.headers.get('x-request-id') ?? ''), 'misbehaving');
    assert.equal(run.outcome, 'failed');
    assert.match(run.failure ?? '', /400 ms/);
    assert.ok(run.durationMs >= 400, `the hook ran until its limit (${run.durationMs} ms)`);
  });

  it('stops a memory bomb at the isolate heap limit', async () => {
    await containedFailure('memory bomb', /memory limit/, 'hoarder');
  });

  it('counts a throw', async () => {
    await containedFailure('throw now', /threw an Error at extension\.js:4:/);
  });

  it('refuses a huge result', async () => {
    await containedFailure('huge result', /result is over 1048576 characters/);
  });

  it('counts a 5,000-level nested body as its failure, not a 500 (issue 30)', async () => {
    await containedFailure('deep nesting', /nests deeper than 128 levels/);
  });

  it('abandons a promise that never settles', async () => {
    await containedFailure('hang around', /did not finish within 400 ms/);
  });

  it('counts a self-referencing Proxy thrown, sync or async, and leaves no isolate thread spinning', async () => {
    await containedFailure('proxy throw', /threw an Error/);
    await containedFailure('proxy async throw', /threw an Error/);
    // A thread still spinning on the thrown value would burn about a CPU second per second.
    const before = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const used = process.cpuUsage(before);
    assert.ok(
      used.user + used.system < 600_000,
      `the process used ${used.user + used.system} us of CPU in 1 s`,
    );
  });

  it('refuses WebAssembly, whose memory the heap limit cannot bound (a 64 MB hook took 4.2 GB)', async () => {
    const saved = await fetch(`${rig.gw.url}/admin/extensions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rig.gw.masterKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'wasm-hoarder',
        models: ['gpt'],
        limits: { timeoutMs: 1_000, memoryMb: 16 },
        source: `const memory = new WebAssembly.Memory({ initial: 2000 });
export function beforeUpstream() { new Uint8Array(memory.buffer).fill(1); }`,
      }),
    });
    assert.equal(saved.status, 400);
    assert.match(await saved.text(), /WebAssembly is not defined/);
  });

  it('saves a module that replaces JSON.stringify at load at once, not after 60 s, and its hooks still run', async () => {
    const started = performance.now();
    await admin(rig.gw, 'POST', '/extensions', {
      id: 'json-override',
      models: ['claude'],
      limits: { timeoutMs: 400, memoryMb: 16 },
      source: `JSON.stringify = () => { for (;;) {} };
Array.prototype.filter = () => { for (;;) {} };
export function beforeUpstream(call) { return { body: { ...call.body, metadata: { seen: 'yes' } } }; }`,
    });
    try {
      assert.ok(performance.now() - started < 5_000, 'saved without waiting out the loop');
      const answer = await chat(rig, 'after the override', { model: 'claude', max_tokens: 10 });
      assert.equal(answer.status, 200);
      const run = runOf(
        await recordedRuns(rig.gw, answer.headers.get('x-request-id') ?? ''),
        'json-override',
      );
      assert.equal(run.outcome, 'replaced');
    } finally {
      await deleteExtension(rig.gw, 'json-override');
    }
  });

  it('keeps the process up', async () => {
    const live = await fetch(`${rig.gw.url}/health/live`);
    assert.equal(live.status, 200);
    const ready = await fetch(`${rig.gw.url}/health/ready`);
    const body = (await ready.json()) as { checks: Record<string, string> };
    assert.equal(ready.status, 200);
    assert.equal(body.checks.extensions, 'ok', 'readiness includes the extension runtime');
  });
});
