import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CAPABILITY_OVERLAY } from './capability-overlay.ts';
import { findOverlayRule } from './find-overlay-rule.ts';

const ALL = { tools: true, vision: true, reasoning: true, structuredOutputs: true };
const NONE = { tools: false, vision: false, reasoning: false, structuredOutputs: false };

function capabilitiesOf(model: string) {
  return findOverlayRule(model)?.capabilities;
}

describe('capability overlay', () => {
  test('gpt-4o and gpt-4.1: tools, vision, structured outputs, no reasoning', () => {
    const expected = { tools: true, vision: true, reasoning: false, structuredOutputs: true };
    assert.deepEqual(capabilitiesOf('gpt-4o-mini'), expected);
    assert.deepEqual(capabilitiesOf('gpt-4.1-nano'), expected);
  });

  test('gpt-5 and the o-series reason', () => {
    assert.deepEqual(capabilitiesOf('gpt-5-mini'), ALL);
    assert.deepEqual(capabilitiesOf('o3'), ALL);
    assert.deepEqual(capabilitiesOf('o4-mini'), ALL);
    assert.equal(capabilitiesOf('o1-mini')?.reasoning, true);
    assert.equal(capabilitiesOf('o1-mini')?.tools, false);
    assert.equal(capabilitiesOf('o3-mini')?.vision, false);
  });

  test('gpt-3.5-turbo: tools only', () => {
    assert.deepEqual(capabilitiesOf('gpt-3.5-turbo-0125'), { ...NONE, tools: true });
  });

  test('embedding, image and audio models declare nothing', () => {
    for (const model of [
      'text-embedding-3-small',
      'dall-e-3',
      'gpt-image-1',
      'whisper-1',
      'gpt-4o-transcribe',
    ]) {
      assert.deepEqual(capabilitiesOf(model), NONE, model);
    }
  });

  test('the longest prefix wins: gpt-4o-transcribe is not gpt-4o', () => {
    assert.equal(findOverlayRule('gpt-4o-transcribe')?.prefix, 'gpt-4o-transcribe');
  });

  test('claude 3 and 3.5: tools and vision, no reasoning, no structured outputs', () => {
    const expected = { tools: true, vision: true, reasoning: false, structuredOutputs: false };
    assert.deepEqual(capabilitiesOf('claude-3-haiku-20240307'), expected);
    assert.deepEqual(capabilitiesOf('claude-3-5-sonnet-20241022'), expected);
  });

  test('claude 3.7 and 4.0 reason, without structured outputs', () => {
    for (const model of [
      'claude-3-7-sonnet-20250219',
      'claude-sonnet-4-20250514',
      'claude-opus-4-20250514',
    ]) {
      assert.deepEqual(capabilitiesOf(model), {
        tools: true,
        vision: true,
        reasoning: true,
        structuredOutputs: false,
      });
    }
  });

  test('claude with structured outputs (Anthropic, "Structured outputs"): 4.5, 4.6 and Opus 4.1, Bedrock ids too', () => {
    for (const model of [
      'claude-sonnet-4-5-20250929',
      'claude-haiku-4-5',
      'claude-opus-4-5-20251101',
      'claude-opus-4-6',
      'claude-sonnet-4-6',
      'claude-opus-4-1-20250805',
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    ]) {
      assert.deepEqual(capabilitiesOf(model), ALL, model);
    }
  });

  test("claude families carry their documented output limit (a translated call's default max_tokens)", () => {
    const limits = {
      'claude-3-5-haiku-20241022': 8_192,
      'claude-3-7-sonnet-20250219': 64_000,
      'claude-sonnet-4-20250514': 64_000,
      'claude-opus-4-20250514': 32_000,
      'claude-opus-4-1-20250805': 32_000,
      'claude-sonnet-4-5-20250929': 64_000,
      'claude-haiku-4-5-20251001': 64_000,
      'claude-opus-4-5-20251101': 64_000,
      'claude-opus-4-6': 128_000,
      'claude-sonnet-4-6': 64_000,
    };
    for (const [model, limit] of Object.entries(limits)) {
      assert.equal(findOverlayRule(model)?.maxOutputTokens, limit, model);
    }
  });

  test('gemini 1.5 and 2.0 without reasoning, 2.5 with', () => {
    assert.equal(capabilitiesOf('gemini-1.5-flash')?.reasoning, false);
    assert.equal(capabilitiesOf('gemini-2.0-flash')?.structuredOutputs, true);
    assert.deepEqual(capabilitiesOf('gemini-2.5-pro'), ALL);
  });

  test('open-weight families: tools, no vision unless a vision variant', () => {
    assert.equal(capabilitiesOf('llama-3.1-8b-instant')?.vision, false);
    assert.equal(capabilitiesOf('llama-3.2-90b-vision-preview')?.vision, true);
    assert.equal(capabilitiesOf('mistral-small-latest')?.tools, true);
    assert.equal(capabilitiesOf('qwen2.5-vl-72b-instruct')?.vision, true);
    assert.equal(capabilitiesOf('qwq-32b')?.reasoning, true);
  });

  test('names are matched case-insensitively, without path or Bedrock prefixes', () => {
    assert.equal(findOverlayRule('meta-llama/Llama-3.1-8B-Instruct')?.prefix, 'llama');
    assert.equal(findOverlayRule('us.anthropic.claude-3-7-sonnet-20250219-v1:0')?.prefix, 'claude-3-7');
    assert.equal(findOverlayRule('models/gemini-2.5-flash')?.prefix, 'gemini-2.5');
  });

  test('an unknown family has no rule', () => {
    assert.equal(findOverlayRule('totally-new-model'), undefined);
  });

  test('the overlay is frozen, rules and capabilities included', () => {
    assert.ok(Object.isFrozen(CAPABILITY_OVERLAY));
    for (const rule of CAPABILITY_OVERLAY) {
      assert.ok(Object.isFrozen(rule) && Object.isFrozen(rule.capabilities), rule.prefix);
    }
  });

  test('every prefix is unique and lower case', () => {
    const prefixes = CAPABILITY_OVERLAY.map((rule) => rule.prefix);
    assert.equal(new Set(prefixes).size, prefixes.length);
    for (const prefix of prefixes) assert.equal(prefix, prefix.toLowerCase());
  });
});
