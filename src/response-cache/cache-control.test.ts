import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCacheControl } from './cache-control.ts';

describe('parseCacheControl', () => {
  it('reads no-cache and no-store among other directives, in any case', () => {
    assert.deepEqual(parseCacheControl(undefined), { noCache: false, noStore: false });
    assert.deepEqual(parseCacheControl('no-cache'), { noCache: true, noStore: false });
    assert.deepEqual(parseCacheControl('max-age=0, No-Store'), { noCache: false, noStore: true });
    assert.deepEqual(parseCacheControl('no-cache="set-cookie",no-store'), { noCache: true, noStore: true });
  });

  it('does not mistake a longer directive for one of them', () => {
    assert.deepEqual(parseCacheControl('no-cache-please, no-stored'), { noCache: false, noStore: false });
  });
});
