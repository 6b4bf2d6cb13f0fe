import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '../../auth/principal.ts';
import { candidatePools } from '../../deployments/candidate-pools.ts';
import type { Deployment, DeploymentProfile } from '../../deployments/deployment.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { CallContext } from '../call-context.ts';
import type { Endpoint, EndpointBody } from '../endpoint.ts';
import { runStages } from '../stage.ts';
import { testCallContext, testEndpoint } from '../test-support.ts';
import type { PoolSource } from './eligible-deployments.ts';
import { createPreflightStages } from './preflight.ts';

let sequence = 0;

function deployment(publicModel: string, fields: Partial<Deployment> = {}): Deployment {
  sequence++;
  return {
    id: `dep_${sequence}`,
    publicModel,
    provider: 'openai',
    upstreamModel: 'gpt-4o-mini',
    apiKeyEnvelope: null,
    baseUrl: null,
    enabled: true,
    weight: 1,
    rpmLimit: null,
    tpmLimit: null,
    pricing: null,
    profile: null,
    providerOptions: {},
    ...fields,
  };
}

function poolOf(...deployments: Deployment[]): PoolSource {
  const deploymentsOf = (model: string) => deployments.filter((d) => d.publicModel === model);
  return { deploymentsOf, poolOf: candidatePools(deploymentsOf) };
}

const CHAT = testEndpoint('chat.completions');
const IMAGES = testEndpoint('images.generations');
const EMBEDDINGS = testEndpoint('embeddings');

function context(
  endpoint: Endpoint,
  body: EndpointBody,
  principal: Principal = { kind: 'master' },
): CallContext {
  return testCallContext({ endpoint, body, principal });
}

async function refusal(pool: PoolSource, ctx: CallContext): Promise<GatewayError> {
  try {
    await runStages(createPreflightStages({ directory: pool }), ctx);
  } catch (error) {
    assert.ok(error instanceof GatewayError);
    return error;
  }
  assert.fail('the call passed pre-flight');
}

const chat = (model: string, extra: Record<string, unknown> = {}): EndpointBody => ({
  model,
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});

const sizes = (...allowed: string[]): DeploymentProfile => ({
  operations: { 'images.generations': { params: { size: allowed } } },
});

describe('createPreflightStages', () => {
  it('lists the checks in order: scope, model, profile, capabilities, context window', () => {
    assert.deepEqual(
      createPreflightStages({ directory: poolOf() }).map((stage) => stage.name),
      ['check-scope', 'resolve-model', 'check-profile', 'check-capabilities', 'check-context-window'],
    );
  });

  it('records the deployments that serve the call, leaving out disabled and unprofiled ones', async () => {
    const served = deployment('m');
    const disabled = deployment('m', { enabled: false });
    const otherOperation = deployment('m', { profile: { operations: { embeddings: {} } } });
    const ctx = context(CHAT, chat('m'));
    await runStages(createPreflightStages({ directory: poolOf(served, disabled, otherOperation) }), ctx);
    assert.deepEqual([...(ctx.eligibleDeploymentIds ?? [])], [served.id]);
  });

  it('passes when one deployment of the pool accepts a parameter, and keeps only that one', async () => {
    const narrow = deployment('img', { upstreamModel: 'gpt-image-1', profile: sizes('1024x1024') });
    const wide = deployment('img', { upstreamModel: 'gpt-image-1', profile: sizes('1024x1024', '512x512') });
    const ctx = context(IMAGES, { model: 'img', prompt: 'p', size: '512x512' });
    await runStages(createPreflightStages({ directory: poolOf(narrow, wide) }), ctx);
    assert.deepEqual([...(ctx.eligibleDeploymentIds ?? [])], [wide.id]);
  });

  it('refuses with the first refusal when no deployment accepts', async () => {
    const pool = poolOf(deployment('img', { upstreamModel: 'gpt-image-1', profile: sizes('1024x1024') }));
    const error = await refusal(pool, context(IMAGES, { model: 'img', prompt: 'p', size: '256x256' }));
    assert.equal(error.code, 'unsupported_parameter');
    assert.equal(error.param, 'size');
    assert.equal(error.publicMessage, `Invalid value for 'size': this model accepts one of "1024x1024".`);
  });

  it('is safe to re-run for another model: the eligible set is rebuilt for ctx.publicModel', async () => {
    const first = deployment('a');
    const second = deployment('b');
    const stages = createPreflightStages({ directory: poolOf(first, second) });
    const ctx = context(CHAT, chat('a'));
    await runStages(stages, ctx);
    ctx.publicModel = 'b';
    await runStages(stages, ctx);
    assert.deepEqual([...(ctx.eligibleDeploymentIds ?? [])], [second.id]);
  });

  it('checks the key scope before saying whether the model exists', async () => {
    const principal: Principal = {
      kind: 'virtual',
      key: {
        id: 'k',
        name: 'k',
        allowedModels: ['a'],
        rpmLimit: null,
        tpmLimit: null,
        budgetCents: null,
        spendCents: 0,
        enabled: true,
        expiresAt: null,
        tags: [],
        budgetPeriod: null,
        budgetResetAtMs: null,
        team: null,
      },
    };
    assert.equal((await refusal(poolOf(), context(CHAT, chat('zzz'), principal))).code, 'model_not_allowed');
    assert.equal((await refusal(poolOf(), context(CHAT, chat('a'), principal))).code, 'model_not_found');
  });

  it('refuses a stream on a provider that cannot stream the operation', async () => {
    const pool = poolOf(deployment('img', { upstreamModel: 'gpt-image-1' }));
    const error = await refusal(pool, context(IMAGES, { model: 'img', prompt: 'p', stream: true }));
    assert.equal(error.code, 'unsupported_parameter');
    assert.equal(error.param, 'stream');
  });

  it('lets a capability through when another deployment of the pool declares it', async () => {
    const old = deployment('m', { upstreamModel: 'gpt-3.5-turbo' });
    const vision = deployment('m', { upstreamModel: 'gpt-4o-mini' });
    const image = { type: 'image_url', image_url: { url: 'https://example.invalid/a.png' } };
    const ctx = context(CHAT, { model: 'm', messages: [{ role: 'user', content: [image] }] });
    await runStages(createPreflightStages({ directory: poolOf(old, vision) }), ctx);
    assert.deepEqual([...(ctx.eligibleDeploymentIds ?? [])], [vision.id]);
    const alone = await refusal(
      poolOf(old),
      context(CHAT, { model: 'm', messages: [{ role: 'user', content: [image] }] }),
    );
    assert.equal(alone.code, 'unsupported_model_capability');
    assert.equal(alone.param, 'messages.0.content.0');
  });

  it('keeps only the deployments whose context window holds the input, in a pool of mixed windows', async () => {
    const small = deployment('w', { upstreamModel: 'gpt-3.5-turbo' });
    const large = deployment('w', { upstreamModel: 'gpt-4o-mini' });
    const pool = poolOf(small, large);
    const short = context(CHAT, chat('w'));
    await runStages(createPreflightStages({ directory: pool }), short);
    assert.deepEqual([...(short.eligibleDeploymentIds ?? [])], [small.id, large.id]);
    const long = context(
      CHAT,
      chat('w', { messages: [{ role: 'user', content: 'lorem ipsum '.repeat(20_000) }] }),
    );
    await runStages(createPreflightStages({ directory: pool }), long);
    assert.deepEqual([...(long.eligibleDeploymentIds ?? [])], [large.id]);
    const alone = await refusal(poolOf(small), context(CHAT, { ...long.body, model: 'w' }));
    assert.equal(alone.code, 'context_length_exceeded');
  });

  it('estimates the input once and measures embeddings per input', async () => {
    const pool = poolOf(deployment('e', { upstreamModel: 'text-embedding-3-small' }));
    const chunk = 'lorem ipsum dolor sit amet '.repeat(1000);
    const batch = context(EMBEDDINGS, { model: 'e', input: [chunk, chunk, chunk] });
    await runStages(createPreflightStages({ directory: pool }), batch);
    assert.ok((batch.estimatedInputTokens ?? 0) > 8192, 'the whole batch is estimated');
    const error = await refusal(pool, context(EMBEDDINGS, { model: 'e', input: [chunk.repeat(2)] }));
    assert.equal(error.code, 'context_length_exceeded');
    assert.equal(error.errorClass, 'context_window');
  });
});
