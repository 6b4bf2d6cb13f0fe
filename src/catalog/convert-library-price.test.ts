import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertLibraryPrice } from './convert-library-price.ts';

test('dollars per million tokens become cents per million tokens', () => {
  assert.deepEqual(convertLibraryPrice({ input_mtok: 2.5, output_mtok: 10, cache_read_mtok: 1.25 }), {
    inputCentsPerMTok: 250,
    outputCentsPerMTok: 1000,
    cachedInputCentsPerMTok: 125,
  });
});

test('conversion leaves no float noise (0.0028 $/MTok is 0.28 cents)', () => {
  assert.equal(convertLibraryPrice({ input_mtok: 0.0028, output_mtok: 0.14 })?.inputCentsPerMTok, 0.28);
  assert.equal(convertLibraryPrice({ input_mtok: 0.0028, output_mtok: 0.14 })?.outputCentsPerMTok, 14);
});

test('a tiered price takes its base tier', () => {
  const tiered = { base: 1.25, tiers: [{ start: 200_000, price: 2.5 }] };
  assert.equal(convertLibraryPrice({ input_mtok: tiered, output_mtok: 10 })?.inputCentsPerMTok, 125);
});

test('dollars per audio hour become cents per minute', () => {
  assert.deepEqual(convertLibraryPrice({ audio_hours: 0.36 }), {
    inputCentsPerMTok: 0,
    outputCentsPerMTok: 0,
    audioCentsPerMinute: 0.6,
  });
  assert.equal(convertLibraryPrice({ input_audio_hours: 0.111 })?.audioCentsPerMinute, 0.185);
});

test('a model priced only in units we do not bill has no pricing', () => {
  assert.equal(convertLibraryPrice({ input_document_kpages: 1 }), null);
  assert.equal(convertLibraryPrice({}), null);
});
