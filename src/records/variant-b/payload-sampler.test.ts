import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallSummary } from '../call-summary.ts';
import { PAYLOAD_SAMPLE_DEFAULTS, PayloadSampler } from './payload-sampler.ts';

const call = (status: CallSummary['status']) => ({ status }) as CallSummary;

describe('PayloadSampler', () => {
  it('samples the configured fraction of successes and every failure', () => {
    let next = 0.5;
    const sampler = new PayloadSampler({ ...PAYLOAD_SAMPLE_DEFAULTS, fraction: 0.25 }, () => next);
    assert.equal(sampler.wantsSuccess(), false);
    next = 0.2;
    assert.equal(sampler.wantsSuccess(), true);
    assert.equal(sampler.reasonFor(call('success'), true), 'sampled');
    assert.equal(sampler.reasonFor(call('success'), false), null);
    assert.equal(sampler.reasonFor(call('failure'), false), 'failure');
    assert.equal(sampler.reasonFor(call('cancelled'), true), null);
  });

  it('keeps at most maxPerSecond samples per second', () => {
    let now = 1_000_000;
    const sampler = new PayloadSampler(
      { ...PAYLOAD_SAMPLE_DEFAULTS, maxPerSecond: 3 },
      Math.random,
      () => now,
    );
    const taken = () =>
      Array.from({ length: 10 }, () => sampler.reasonFor(call('failure'), false)).filter(Boolean).length;
    assert.equal(taken(), 3);
    now += 1_000;
    assert.equal(taken(), 3);
    now += 500;
    assert.equal(taken(), 1);
  });

  it('bounds the plaintext in bytes, multi-byte text included', () => {
    const sampler = new PayloadSampler({ ...PAYLOAD_SAMPLE_DEFAULTS, maxBytes: 1024 });
    for (const text of ['x'.repeat(5000), 'é'.repeat(5000), '😀'.repeat(5000), '"\\'.repeat(5000)]) {
      const plaintext = sampler.plaintextOf({
        requestId: 'r',
        operation: 'chat.completions',
        publicModel: 'm',
        request: { text },
        response: null,
        error: null,
      });
      assert.ok(Buffer.byteLength(plaintext) <= 1024, `${Buffer.byteLength(plaintext)} bytes`);
      assert.equal(JSON.parse(plaintext).truncated, true);
    }
  });

  it('keeps the same truncated text of a body with a long string, cut before it is serialised', () => {
    const sampler = new PayloadSampler({ ...PAYLOAD_SAMPLE_DEFAULTS, maxBytes: 1024 });
    const sample = {
      requestId: 'r',
      operation: 'chat.completions',
      publicModel: 'm',
      request: { model: 'm', messages: [{ role: 'user', content: 'lorem ipsum '.repeat(100_000) }], n: 1 },
      response: null,
      error: null,
    };
    const whole = JSON.stringify(sample);
    assert.equal(
      sampler.plaintextOf(sample),
      JSON.stringify({ truncated: true, text: whole.slice(0, 1024 - 64) }),
    );
  });

  it('replaces binary parts with their size', () => {
    const sampler = new PayloadSampler(PAYLOAD_SAMPLE_DEFAULTS);
    const plaintext = sampler.plaintextOf({
      requestId: 'r',
      operation: 'audio.transcriptions',
      publicModel: 'm',
      request: { file: Buffer.alloc(100_000) },
      response: null,
      error: null,
    });
    assert.equal(JSON.parse(plaintext).request.file, '[binary: 100000 bytes]');
  });
});
