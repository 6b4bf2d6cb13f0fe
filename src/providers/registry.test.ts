import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getProviderAdapter, planOperation, providerIds } from './registry.ts';
import { OPERATIONS } from './types.ts';

describe('provider registry', () => {
  test('knows each provider once, by id', () => {
    const ids = providerIds();
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ['openai', 'azure', 'openai-compatible', 'anthropic']) {
      assert.ok(ids.includes(id));
      assert.equal(getProviderAdapter(id)?.id, id);
    }
    assert.equal(getProviderAdapter('nope'), null);
  });

  test('native operations are planned natively', () => {
    const plan = planOperation('openai', 'responses');
    assert.equal(plan?.kind, 'native');
    assert.equal(plan?.adapter, getProviderAdapter('openai')?.operations.responses);
  });

  test('messages on an OpenAI-format provider goes through chat.completions', () => {
    for (const id of ['openai', 'azure', 'openai-compatible']) {
      const plan = planOperation(id, 'messages');
      assert.equal(plan?.kind, 'translated');
      if (plan?.kind !== 'translated') continue;
      assert.equal(plan.translator.from, 'messages');
      assert.equal(plan.translator.to, 'chat.completions');
      assert.equal(plan.adapter, getProviderAdapter(id)?.operations['chat.completions']);
    }
  });

  test('chat.completions on Anthropic goes through messages; responses through chat where there is no native one', () => {
    const chat = planOperation('anthropic', 'chat.completions');
    assert.equal(chat?.kind === 'translated' && chat.translator.to, 'messages');
    const responses = planOperation('openai-compatible', 'responses');
    assert.equal(responses?.kind === 'translated' && responses.translator.to, 'chat.completions');
  });

  test('an operation a provider cannot reach, or an unknown provider, has no plan', () => {
    assert.equal(planOperation('anthropic', 'embeddings'), null);
    assert.equal(planOperation('openai-compatible', 'audio.transcriptions'), null);
    assert.equal(planOperation('nope', 'chat.completions'), null);
  });

  test('reaches an operation in two translations when one is not enough (Responses on Anthropic)', () => {
    const plan = planOperation('anthropic', 'responses');
    assert.ok(plan !== null && plan.kind === 'translated');
    assert.equal(plan.translator.from, 'responses');
    assert.equal(plan.translator.to, 'messages');
    assert.equal(plan.adapter, getProviderAdapter('anthropic')?.operations.messages);
  });

  test('Bedrock plans by model: Claude speaks Messages through InvokeModel, others Chat through Converse', () => {
    const claude = { upstreamModel: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', providerOptions: {} };
    const nova = { upstreamModel: 'amazon.nova-pro-v1:0', providerOptions: {} };
    const viaConverse = { ...claude, providerOptions: { claudeApi: 'converse' } };
    const kinds = (model: typeof claude) =>
      (['messages', 'chat.completions', 'responses'] as const).map((operation) => {
        const plan = planOperation('bedrock', operation, model);
        return plan?.kind === 'translated' ? `via ${plan.translator.to}` : plan?.kind;
      });
    assert.deepEqual(kinds(claude), ['native', 'via messages', 'via messages']);
    assert.deepEqual(kinds(nova), ['via chat.completions', 'native', 'via chat.completions']);
    assert.deepEqual(kinds(viaConverse), kinds(nova));
  });

  test('every provider operation is an operation of the contract', () => {
    for (const id of providerIds()) {
      for (const operation of Object.keys(getProviderAdapter(id)!.operations)) {
        assert.ok((OPERATIONS as readonly string[]).includes(operation), `${id}: ${operation}`);
      }
    }
  });
});
