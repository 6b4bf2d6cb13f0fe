import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lookupCatalogEntry } from '../providers/catalog-entries.ts';
import { resolveCatalogEntry } from './resolve-catalog-entry.ts';

const OVERRIDE = { inputCentsPerMTok: 100, outputCentsPerMTok: 400, imageCents: 4 };

describe('resolveCatalogEntry', () => {
  test('without overrides it is the memoised catalog entry', () => {
    assert.equal(
      resolveCatalogEntry(lookupCatalogEntry('openai', 'gpt-4o'), {}),
      lookupCatalogEntry('openai', 'gpt-4o'),
    );
    assert.equal(
      resolveCatalogEntry(lookupCatalogEntry('openai', 'gpt-4o')),
      lookupCatalogEntry('openai', 'gpt-4o'),
    );
  });

  test('a pricing override replaces the catalog price and is reported as the source', () => {
    const entry = resolveCatalogEntry(lookupCatalogEntry('openai', 'gpt-4o'), { pricing: OVERRIDE });
    assert.deepEqual(entry.pricing, OVERRIDE);
    assert.equal(entry.source.pricing, 'override');
    assert.equal(entry.contextWindow, 128_000);
  });

  test('a pricing override prices a model the catalog cannot', () => {
    const entry = resolveCatalogEntry(lookupCatalogEntry('openai-compatible', 'my-private-llm'), {
      pricing: OVERRIDE,
    });
    assert.equal(entry.pricing?.inputCentsPerMTok, 100);
    assert.equal(entry.source.pricing, 'override');
  });

  test('a null pricing override keeps the catalog price', () => {
    const entry = resolveCatalogEntry(lookupCatalogEntry('openai', 'gpt-4o'), { pricing: null });
    assert.equal(entry.pricing?.inputCentsPerMTok, 250);
    assert.equal(entry.source.pricing, 'catalog');
  });

  test('a context window override replaces the catalog one', () => {
    assert.equal(
      resolveCatalogEntry(lookupCatalogEntry('openai', 'gpt-4o'), { contextWindow: 32_000 }).contextWindow,
      32_000,
    );
  });

  test('capability overrides merge flag by flag', () => {
    const entry = resolveCatalogEntry(lookupCatalogEntry('anthropic', 'claude-3-5-sonnet-20241022'), {
      capabilities: { structuredOutputs: true },
    });
    assert.deepEqual(entry.capabilities, {
      tools: true,
      vision: true,
      reasoning: false,
      structuredOutputs: true,
    });
    assert.equal(entry.source.capabilities, 'override');
  });

  test('the overridden entry is frozen and leaves the shared catalog entry untouched', () => {
    const entry = resolveCatalogEntry(lookupCatalogEntry('openai', 'gpt-4o'), {
      pricing: OVERRIDE,
      capabilities: { vision: false },
    });
    assert.ok(
      Object.isFrozen(entry) && Object.isFrozen(entry.pricing) && Object.isFrozen(entry.capabilities),
    );
    assert.equal(lookupCatalogEntry('openai', 'gpt-4o').capabilities.vision, true);
    assert.equal(lookupCatalogEntry('openai', 'gpt-4o').source.pricing, 'catalog');
  });
});
