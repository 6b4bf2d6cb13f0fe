import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ModelPricing } from '../catalog/model-pricing.ts';
import { computeCostCents } from './cost.ts';

const GPT_4O: ModelPricing = {
  inputCentsPerMTok: 250,
  outputCentsPerMTok: 1000,
  cachedInputCentsPerMTok: 125,
};

function near(actual: number, expected: number): void {
  assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} is not ${expected}`);
}

describe('computeCostCents', () => {
  test('input and output tokens at their prices per million', () => {
    near(computeCostCents({ inputTokens: 1_000_000, outputTokens: 1_000_000 }, GPT_4O), 1250);
  });

  test('cached tokens are part of the input and billed at the cached price', () => {
    // 800 uncached * 250 + 200 cached * 125 + 500 output * 1000, per million.
    near(computeCostCents({ inputTokens: 1000, cachedInputTokens: 200, outputTokens: 500 }, GPT_4O), 0.725);
  });

  test('without a cached price, cached tokens cost the input price', () => {
    const pricing = { inputCentsPerMTok: 300, outputCentsPerMTok: 1500 };
    near(computeCostCents({ inputTokens: 1000, cachedInputTokens: 400, outputTokens: 0 }, pricing), 0.3);
  });

  test('more cached than input tokens never makes a negative input charge', () => {
    near(computeCostCents({ inputTokens: 100, cachedInputTokens: 500, outputTokens: 0 }, GPT_4O), 0.0125);
  });

  test('images at imageCents each', () => {
    const pricing = { inputCentsPerMTok: 0, outputCentsPerMTok: 0, imageCents: 4 };
    near(computeCostCents({ inputTokens: 0, outputTokens: 0, images: 3 }, pricing), 12);
  });

  test('audio seconds at audioCentsPerMinute', () => {
    const pricing = { inputCentsPerMTok: 0, outputCentsPerMTok: 0, audioCentsPerMinute: 0.6 };
    near(computeCostCents({ inputTokens: 0, outputTokens: 0, audioSeconds: 90 }, pricing), 0.9);
  });

  test('images and audio without a price cost nothing', () => {
    near(computeCostCents({ inputTokens: 0, outputTokens: 0, images: 2, audioSeconds: 60 }, GPT_4O), 0);
  });

  test('fractional cents are kept, not rounded', () => {
    near(computeCostCents({ inputTokens: 1, outputTokens: 0 }, GPT_4O), 0.00025);
  });

  test('an unpriced model costs 0', () => {
    assert.equal(
      computeCostCents({ inputTokens: 5000, outputTokens: 5000, images: 1, audioSeconds: 30 }, null),
      0,
    );
  });

  test('a garbled count bills nothing for that count', () => {
    near(computeCostCents({ inputTokens: Number.NaN, outputTokens: 1000 }, GPT_4O), 1);
    near(computeCostCents({ inputTokens: -50, outputTokens: 1000 }, GPT_4O), 1);
  });
});
