import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ModelCatalog } from '../catalog/model-catalog.ts';
import { lookupCatalogEntry } from './catalog-entries.ts';
import { getProviderAdapter } from './registry.ts';

/** A catalog of its own (a fresh memo), pricing by the providers' lookups as the gateway's does. */
const catalogAt = (now?: () => number) =>
  new ModelCatalog({ priceLookupsOf: (provider) => getProviderAdapter(provider)?.priceLookups, now });

// Expected prices are genai-prices 0.1.8's data (US dollars per million tokens) times 100.
describe('lookupCatalogEntry: prices and context windows from genai-prices', () => {
  test('gpt-4o: $2.50 / $10 / $1.25 cached per MTok become 250 / 1000 / 125 cents', () => {
    const entry = lookupCatalogEntry('openai', 'gpt-4o');
    assert.deepEqual(entry.pricing, {
      inputCentsPerMTok: 250,
      outputCentsPerMTok: 1000,
      cachedInputCentsPerMTok: 125,
    });
    assert.equal(entry.contextWindow, 128_000);
    assert.deepEqual(entry.source, { pricing: 'catalog', capabilities: 'overlay' });
  });

  test('Vertex AI: Gemini and Claude (`@version` ids) at Vertex prices, with their capabilities', () => {
    const gemini = lookupCatalogEntry('vertex', 'gemini-2.5-flash');
    assert.equal(gemini.pricing?.inputCentsPerMTok, 30);
    assert.equal(gemini.pricing?.outputCentsPerMTok, 250);
    const claude = lookupCatalogEntry('vertex', 'claude-sonnet-4-5@20250929');
    assert.equal(claude.pricing?.inputCentsPerMTok, 300);
    assert.equal(claude.pricing?.outputCentsPerMTok, 1500);
    assert.equal(claude.capabilities.reasoning, true, 'the overlay knows the family behind @version');
    assert.equal(claude.source.capabilities, 'overlay');
  });

  test('Bedrock: regional (us.) and global (global.) inference profiles at their own prices', () => {
    const regional = lookupCatalogEntry('bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0');
    const global = lookupCatalogEntry('bedrock', 'global.anthropic.claude-sonnet-4-5-20250929-v1:0');
    assert.equal(regional.pricing?.inputCentsPerMTok, 330, 'regional endpoints cost 10% more');
    assert.equal(global.pricing?.inputCentsPerMTok, 300);
    assert.equal(global.capabilities.reasoning, true);
  });

  test('a dated snapshot resolves to its family price', () => {
    assert.equal(lookupCatalogEntry('openai', 'gpt-4o-2024-08-06').pricing?.inputCentsPerMTok, 250);
  });

  test('claude-3-5-sonnet: $3 / $15 / $0.30 cache read', () => {
    const entry = lookupCatalogEntry('anthropic', 'claude-3-5-sonnet-20241022');
    assert.deepEqual(entry.pricing, {
      inputCentsPerMTok: 300,
      outputCentsPerMTok: 1500,
      cachedInputCentsPerMTok: 30,
    });
    assert.equal(entry.contextWindow, 200_000);
  });

  test('a price without float noise: gpt-4o-mini $0.15 is exactly 15 cents', () => {
    const entry = lookupCatalogEntry('openai', 'gpt-4o-mini');
    assert.equal(entry.pricing?.inputCentsPerMTok, 15);
    assert.equal(entry.pricing?.cachedInputCentsPerMTok, 7.5);
  });

  test('tiered prices take the first tier: gemini-1.5-pro $1.25 below 128k tokens', () => {
    const entry = lookupCatalogEntry('gemini', 'gemini-1.5-pro');
    assert.equal(entry.pricing?.inputCentsPerMTok, 125);
    assert.equal(entry.pricing?.outputCentsPerMTok, 500);
  });

  test('gemini accepts the `models/` form of the id', () => {
    assert.equal(lookupCatalogEntry('gemini', 'models/gemini-2.0-flash').pricing?.inputCentsPerMTok, 10);
  });

  test('the overlay supplies a context window the library lacks (gemini-2.5-pro)', () => {
    assert.equal(lookupCatalogEntry('gemini', 'gemini-2.5-pro').contextWindow, 1_048_576);
  });

  test('the library context window wins over the overlay (gpt-4.1: 1,000,000 in the data)', () => {
    assert.equal(lookupCatalogEntry('openai', 'gpt-4.1').contextWindow, 1_000_000);
  });

  test('an audio model priced per hour becomes cents per minute (whisper-1: $0.36/h = 0.6 cents/min)', () => {
    const pricing = lookupCatalogEntry('openai', 'whisper-1').pricing;
    assert.equal(pricing?.audioCentsPerMinute, 0.6);
    assert.equal(pricing?.inputCentsPerMTok, 0);
  });

  test('an OpenAI fine-tune gets the fine-tune price, not the base price', () => {
    const entry = lookupCatalogEntry('openai', 'ft:gpt-4o-mini-2024-07-18:acme::abc123');
    assert.deepEqual(entry.pricing, { inputCentsPerMTok: 30, outputCentsPerMTok: 120 });
    assert.equal(entry.capabilities.vision, true);
  });
});

describe('lookupCatalogEntry: provider mapping', () => {
  test('azure maps to the library azure prices (falling back to OpenAI models)', () => {
    const entry = lookupCatalogEntry('azure', 'gpt-4o-mini');
    assert.equal(entry.pricing?.inputCentsPerMTok, 15);
    assert.equal(entry.contextWindow, 128_000);
  });

  test('bedrock: a plain Anthropic model id', () => {
    const entry = lookupCatalogEntry('bedrock', 'anthropic.claude-3-5-sonnet-20240620-v1:0');
    assert.deepEqual(entry.pricing, {
      inputCentsPerMTok: 300,
      outputCentsPerMTok: 1500,
      cachedInputCentsPerMTok: 30,
    });
    assert.equal(entry.capabilities.vision, true);
    assert.equal(entry.source.capabilities, 'overlay');
  });

  test('bedrock: a cross-region inference profile id', () => {
    const entry = lookupCatalogEntry('bedrock', 'us.anthropic.claude-3-5-sonnet-20240620-v1:0');
    assert.equal(entry.pricing?.inputCentsPerMTok, 300);
    assert.equal(entry.contextWindow, 200_000);
  });

  test('bedrock: a Meta model', () => {
    const entry = lookupCatalogEntry('bedrock', 'meta.llama3-1-70b-instruct-v1:0');
    assert.deepEqual(entry.pricing, { inputCentsPerMTok: 72, outputCentsPerMTok: 72 });
    assert.equal(entry.capabilities.tools, true);
  });

  test('openai-compatible: a model name the library attributes to a provider', () => {
    assert.equal(
      lookupCatalogEntry('openai-compatible', 'mistral-large-latest').pricing?.inputCentsPerMTok,
      200,
    );
  });

  test('openai-compatible: a vendor-prefixed name is looked up by its last segment', () => {
    assert.equal(lookupCatalogEntry('openai-compatible', 'openai/gpt-4o').pricing?.inputCentsPerMTok, 250);
  });

  test('openai-compatible: a self-hosted model has no price but the overlay capabilities', () => {
    const entry = lookupCatalogEntry('openai-compatible', 'meta-llama/Llama-3.1-8B-Instruct');
    assert.equal(entry.pricing, null);
    assert.equal(entry.source.pricing, 'none');
    assert.equal(entry.source.capabilities, 'overlay');
  });

  test('an unknown provider id prices nothing', () => {
    assert.equal(lookupCatalogEntry('no-such-provider', 'gpt-4o').pricing, null);
  });

  test('a provider id that is an Object.prototype key is just unknown', () => {
    assert.equal(lookupCatalogEntry('constructor', 'gpt-4o').pricing, null);
  });
});

describe('lookupCatalogEntry: unknown models', () => {
  test('an unknown model gets every capability, no context window, no price', () => {
    const entry = lookupCatalogEntry('openai', 'totally-new-model-x');
    assert.deepEqual(entry.capabilities, {
      tools: true,
      vision: true,
      reasoning: true,
      structuredOutputs: true,
    });
    assert.equal(entry.contextWindow, null);
    assert.equal(entry.maxOutputTokens, null);
    assert.equal(entry.pricing, null);
    assert.deepEqual(entry.source, { pricing: 'none', capabilities: 'default' });
  });

  test('a known family the library cannot price: dall-e-3 has overlay capabilities and no price', () => {
    const entry = lookupCatalogEntry('openai', 'dall-e-3');
    assert.equal(entry.pricing, null);
    assert.equal(entry.capabilities.tools, false);
  });
});

describe('ModelCatalog memo', () => {
  test('the second lookup returns the memoised, frozen entry', () => {
    const catalog = catalogAt();
    const first = catalog.lookup('openai', 'gpt-4o');
    assert.equal(catalog.lookup('openai', 'gpt-4o'), first);
    assert.ok(Object.isFrozen(first));
    assert.ok(Object.isFrozen(first.pricing));
    assert.ok(Object.isFrozen(first.capabilities));
  });

  test('a fixed-price entry never reads the clock again', () => {
    let clockReads = 0;
    const catalog = catalogAt(() => {
      clockReads += 1;
      return Date.parse('2025-07-01T00:00:00Z');
    });
    catalog.lookup('anthropic', 'claude-3-5-sonnet-20241022');
    const readsAfterFirst = clockReads;
    catalog.lookup('anthropic', 'claude-3-5-sonnet-20241022');
    assert.equal(clockReads, readsAfterFirst);
  });

  test('a scheduled price change is picked up once its start date passes (o3: $10 -> $2 on 2025-06-10)', () => {
    let nowMs = Date.parse('2025-06-09T23:00:00Z');
    const catalog = catalogAt(() => nowMs);
    const before = catalog.lookup('openai', 'o3');
    assert.equal(before.pricing?.inputCentsPerMTok, 1000);
    nowMs = Date.parse('2025-06-09T23:59:00Z');
    assert.equal(catalog.lookup('openai', 'o3'), before);
    nowMs = Date.parse('2025-06-10T00:00:01Z');
    assert.equal(catalog.lookup('openai', 'o3').pricing?.inputCentsPerMTok, 200);
  });

  test('a time-of-day price follows the clock (deepseek-chat: peak 00:30-16:30 UTC)', () => {
    let nowMs = Date.parse('2025-03-01T02:00:00Z');
    const catalog = catalogAt(() => nowMs);
    assert.equal(catalog.lookup('openai-compatible', 'deepseek-chat').pricing?.inputCentsPerMTok, 27);
    nowMs = Date.parse('2025-03-01T20:00:00Z');
    assert.equal(catalog.lookup('openai-compatible', 'deepseek-chat').pricing?.inputCentsPerMTok, 13.5);
    nowMs = Date.parse('2025-03-02T01:00:00Z');
    assert.equal(catalog.lookup('openai-compatible', 'deepseek-chat').pricing?.inputCentsPerMTok, 27);
  });
});
