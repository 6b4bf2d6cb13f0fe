import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Operation } from '../formats/operation.ts';
import { testContext } from '../limits/test-support.ts';
import { fallbackPolicy } from '../router/fallback-policy.ts';
import { DEFAULT_ROUTER_SETTINGS, type RouterSettings } from '../router/router-settings-schema.ts';
import type { AttemptResult } from './attempt-result.ts';
import type { CallContext } from './call-context.ts';
import { InferencePipeline, ROUTING_HEADERS } from './pipeline.ts';
import { type AnswerSource, type AnswerStage, CONTINUE, type Stage } from './stage.ts';
import { testCallContext } from './test-support.ts';

const ANSWER: AttemptResult = { kind: 'json', answer: { ok: true }, usage: null };

function settingsWith(fallbacks: Partial<RouterSettings['fallbacks']>): { current(): RouterSettings } {
  const settings = {
    ...DEFAULT_ROUTER_SETTINGS,
    fallbacks: { general: {}, context_window: {}, content_policy: {}, ...fallbacks },
  };
  return { current: () => settings };
}

/** A pipeline whose router answers per model: an error to throw, or the answer. */
function pipelineWith(options: {
  outcomes: Record<string, GatewayError | 'ok'>;
  fallbacks?: Partial<RouterSettings['fallbacks']>;
  preflight?: Stage[];
  call?: Stage[];
  answer?: AnswerStage[];
}) {
  const routed: string[] = [];
  const pipeline = new InferencePipeline({
    preflight: options.preflight ?? [],
    call: options.call ?? [],
    answer: options.answer ?? [],
    route: async (ctx: CallContext) => {
      routed.push(ctx.publicModel);
      const outcome = options.outcomes[ctx.publicModel] ?? new GatewayError('model_not_found');
      if (outcome !== 'ok') throw outcome;
      return ANSWER;
    },
    fallbacks: fallbackPolicy(settingsWith(options.fallbacks ?? {})),
  });
  return { pipeline, routed };
}

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof GatewayError, String(error));
    return error;
  }
  assert.fail('expected a failure');
}

describe('InferencePipeline fallback loop', () => {
  it('serves from the first model of the chain that answers, and says so', async () => {
    const { pipeline, routed } = pipelineWith({
      outcomes: { m: new GatewayError('upstream_error'), b: new GatewayError('timeout'), c: 'ok' },
      fallbacks: { general: { m: ['b', 'c'] } },
    });
    const ctx = testContext(null);
    assert.equal(await pipeline.run(ctx), ANSWER);
    assert.deepEqual(routed, ['m', 'b', 'c']);
    assert.equal(ctx.publicModel, 'c');
    assert.equal(ctx.responseHeaders[ROUTING_HEADERS.fallbackModel], 'c');
  });

  it('answers the failure as it is when the model has no chain', async () => {
    const { pipeline } = pipelineWith({ outcomes: { m: new GatewayError('deployments_in_cooldown') } });
    const error = await rejection(pipeline.run(testContext(null)));
    assert.equal(error.code, 'deployments_in_cooldown');
  });

  it('answers no_deployments_available with the last status once a chain is exhausted', async () => {
    const { pipeline, routed } = pipelineWith({
      outcomes: { m: new GatewayError('upstream_error'), b: new GatewayError('deployments_in_cooldown') },
      fallbacks: { general: { m: ['b'] } },
    });
    const ctx = testContext(null);
    const error = await rejection(pipeline.run(ctx));
    assert.equal(error.code, 'no_deployments_available');
    assert.equal(error.status, 429);
    assert.deepEqual(routed, ['m', 'b']);
    assert.equal(ctx.publicModel, 'm', 'the call is recorded under the model the client named');
  });

  it('takes the chain of the failure class', async () => {
    const { pipeline, routed } = pipelineWith({
      outcomes: { m: new GatewayError('content_policy_violation'), b: 'ok', safe: 'ok' },
      fallbacks: { general: { m: ['b'] }, content_policy: { m: ['safe'] } },
    });
    await pipeline.run(testContext(null));
    assert.deepEqual(routed, ['m', 'safe']);
  });

  it('never reroutes a bad request', async () => {
    const { pipeline, routed } = pipelineWith({
      outcomes: { m: new GatewayError('invalid_request'), b: 'ok' },
      fallbacks: { general: { m: ['b'] } },
    });
    assert.equal((await rejection(pipeline.run(testContext(null)))).code, 'invalid_request');
    assert.deepEqual(routed, ['m']);
  });

  it('reroutes a pre-flight context_window refusal and passes over a fallback its pre-flight refuses', async () => {
    const preflight: Stage = {
      name: 'test-preflight',
      run(ctx) {
        if (ctx.publicModel === 'm') throw new GatewayError('context_length_exceeded');
        if (ctx.publicModel === 'forbidden') throw new GatewayError('model_not_allowed');
        return CONTINUE;
      },
    };
    const { pipeline, routed } = pipelineWith({
      outcomes: { forbidden: 'ok', large: 'ok' },
      fallbacks: { context_window: { m: ['forbidden', 'large'] } },
      preflight: [preflight],
    });
    const ctx = testContext(null);
    await pipeline.run(ctx);
    assert.deepEqual(routed, ['large']);
    assert.equal(ctx.responseHeaders[ROUTING_HEADERS.fallbackModel], 'large');
  });

  it('runs the call-level stages once, and answers their refusal as it is', async () => {
    let admissions = 0;
    const admit: Stage = {
      name: 'admit',
      run() {
        admissions++;
        return CONTINUE;
      },
    };
    const { pipeline } = pipelineWith({
      outcomes: { m: new GatewayError('upstream_error'), b: 'ok' },
      fallbacks: { general: { m: ['b'] } },
      call: [admit],
    });
    await pipeline.run(testContext(null));
    assert.equal(admissions, 1);

    const refuse: Stage = {
      name: 'refuse',
      run() {
        throw new GatewayError('rate_limit_exceeded');
      },
    };
    const refused = pipelineWith({
      outcomes: { b: 'ok' },
      fallbacks: { general: { m: ['b'] } },
      call: [refuse],
    });
    assert.equal((await rejection(refused.pipeline.run(testContext(null)))).code, 'rate_limit_exceeded');
    assert.deepEqual(refused.routed, []);
  });

  it('reports the attempts count on failures too', async () => {
    const { pipeline } = pipelineWith({ outcomes: { m: new GatewayError('upstream_error') } });
    const ctx = testContext(null);
    await rejection(pipeline.run(ctx));
    assert.equal(ctx.responseHeaders[ROUTING_HEADERS.attempts], '0');
  });
});

describe('InferencePipeline stages by operation', () => {
  it("runs a stage that names its operations on those only, and the others' stages on every call", async () => {
    const seen: string[] = [];
    const note = (name: string, operations?: Operation[]): Stage => ({
      name,
      operations,
      run: (ctx) => {
        seen.push(`${name}:${ctx.endpoint.operation}`);
        return CONTINUE;
      },
    });
    const answering = (name: string, operations: Operation[]): AnswerStage => ({
      name,
      operations,
      run: (ctx, result) => {
        seen.push(`${name}:${ctx.endpoint.operation}`);
        return result;
      },
    });
    const { pipeline } = pipelineWith({
      outcomes: { m: 'ok' },
      preflight: [note('every'), note('responses-only', ['responses'])],
      call: [note('chat-only', ['chat.completions'])],
      answer: [answering('store', ['responses'])],
    });
    await pipeline.run(testContext(null));
    await pipeline.run(
      testCallContext({ endpoint: { ...testContext(null).endpoint, operation: 'responses' } }),
    );
    assert.deepEqual(seen, [
      'every:chat.completions',
      'chat-only:chat.completions',
      'every:responses',
      'responses-only:responses',
      'store:responses',
    ]);
  });
});

describe('InferencePipeline answer stages', () => {
  /** An answer stage that notes what it saw and wraps the answer under its name. */
  function wrapping(name: string, seen: string[]): AnswerStage {
    return {
      name,
      run(ctx, result, source: AnswerSource) {
        seen.push(`${name}:${source}:${ctx.publicModel}`);
        if (result.kind !== 'json') return result;
        return { ...result, answer: { [name]: result.answer } };
      },
    };
  }

  it('passes the served answer through the answer stages in order, once, after any fallback', async () => {
    const seen: string[] = [];
    const { pipeline } = pipelineWith({
      outcomes: { m: new GatewayError('upstream_error'), b: 'ok' },
      fallbacks: { general: { m: ['b'] } },
      answer: [wrapping('first', seen), wrapping('second', seen)],
    });
    const result = await pipeline.run(testContext(null));
    assert.deepEqual(seen, ['first:route:b', 'second:route:b']);
    assert.deepEqual(result.kind === 'json' && result.answer, { second: { first: { ok: true } } });
  });

  it("tells the answer stages a stage's answer from the router's", async () => {
    const seen: string[] = [];
    const hit: Stage = { name: 'hit', run: () => ({ kind: 'respond', result: ANSWER }) };
    const { pipeline, routed } = pipelineWith({
      outcomes: { m: 'ok' },
      call: [hit],
      answer: [wrapping('store', seen)],
    });
    await pipeline.run(testContext(null));
    assert.deepEqual(routed, []);
    assert.deepEqual(seen, ['store:stage:m']);
  });

  it('runs no answer stage on a failure', async () => {
    const seen: string[] = [];
    const { pipeline } = pipelineWith({
      outcomes: { m: new GatewayError('upstream_error') },
      answer: [wrapping('store', seen)],
    });
    await rejection(pipeline.run(testContext(null)));
    assert.deepEqual(seen, []);
  });
});
