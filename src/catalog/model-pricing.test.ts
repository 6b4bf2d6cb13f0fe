import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelPricingSchema } from './model-pricing.ts';

test('modelPricingSchema accepts the DESIGN.md section 5 override shape', () => {
  const pricing = {
    inputCentsPerMTok: 250,
    outputCentsPerMTok: 1000,
    cachedInputCentsPerMTok: 125,
    imageCents: 4,
  };
  assert.deepEqual(modelPricingSchema.parse(pricing), pricing);
});

test('modelPricingSchema requires input and output prices', () => {
  assert.equal(modelPricingSchema.safeParse({ inputCentsPerMTok: 1 }).success, false);
});

test('modelPricingSchema rejects negative prices and unknown fields', () => {
  assert.equal(modelPricingSchema.safeParse({ inputCentsPerMTok: -1, outputCentsPerMTok: 1 }).success, false);
  const typo = modelPricingSchema.safeParse({
    inputCentsPerMTok: 1,
    outputCentsPerMTok: 1,
    cachedInputCentsPerMtok: 1,
  });
  assert.equal(typo.success, false);
});
