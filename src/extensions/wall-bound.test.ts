import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { WallBound } from './wall-bound.ts';

const NEVER = new Promise<never>(() => {});

function expiredError(ended: string[], name: string) {
  return () => {
    ended.push(name);
    return new Error(`${name} expired`);
  };
}

describe('WallBound', () => {
  it('passes on what the work settles with, a value or an error', async () => {
    const wall = new WallBound(1_000);
    assert.equal(await wall.watch(Promise.resolve('done'), () => new Error('no')), 'done');
    await assert.rejects(
      wall.watch(Promise.reject(new Error('thrown')), () => new Error('no')),
      /thrown/,
    );
  });

  it('ends only the calls still running at their deadline, each once, in the order they started', async () => {
    const wall = new WallBound(40);
    const ended: string[] = [];
    const first = wall.watch(NEVER, expiredError(ended, 'first'));
    const quick = wall.watch(
      delay(5).then(() => 'quick'),
      expiredError(ended, 'quick'),
    );
    await delay(20);
    const late = wall.watch(NEVER, expiredError(ended, 'late'));
    assert.equal(await quick, 'quick');
    await assert.rejects(first, /first expired/);
    assert.deepEqual(ended, ['first']);
    await assert.rejects(late, /late expired/);
    assert.deepEqual(ended, ['first', 'late']);
  });

  it('ignores what the work does once its call was ended', async () => {
    const wall = new WallBound(10);
    let finish: (value: string) => void = () => {};
    const work = new Promise<string>((resolve) => {
      finish = resolve;
    });
    await assert.rejects(
      wall.watch(work, () => new Error('expired')),
      /expired/,
    );
    finish('too late');
    // A later call is bounded as the first was: the ended call left no state behind.
    await assert.rejects(
      wall.watch(NEVER, () => new Error('again')),
      /again/,
    );
  });
});
