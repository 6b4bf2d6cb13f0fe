import type { VirtualKey } from '../auth/principal.ts';
import type { Deployment, DeploymentPricing } from '../deployments/deployment.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import type { EndpointBody } from '../pipeline/endpoint.ts';
import { testCallContext } from '../pipeline/test-support.ts';
import type { Usage } from '../providers/types.ts';
import type { RoutedPool } from './admission-stage.ts';
import type { CostModel } from './cost.ts';

/**
 * Test doubles for the unit tests of this folder: a cost model whose estimate is the body's
 * `estimate` field, and contexts without HTTP.
 */
export const TEST_COST_MODEL: CostModel = {
  estimateInputTokens: (_operation, body) => (typeof body.estimate === 'number' ? body.estimate : 10),
  // The provider bills what the gateway counts: these tests are about admission, not the margin.
  inputTokenBound: (query) => query.estimate,
  requestedOutputTokens: (_operation, body) => (typeof body.max_tokens === 'number' ? body.max_tokens : null),
  catalogPricing: (_provider, upstreamModel) =>
    upstreamModel === 'cataloged' ? { inputCentsPerMTok: 100, outputCentsPerMTok: 200 } : null,
  tokenLimits: (_provider, upstreamModel) =>
    upstreamModel === 'cataloged'
      ? { contextWindow: 100_000, maxOutputTokens: 4_000 }
      : { contextWindow: null, maxOutputTokens: null },
  computeCostCents: (usage: Usage, pricing: DeploymentPricing) =>
    (usage.inputTokens * pricing.inputCentsPerMTok + usage.outputTokens * pricing.outputCentsPerMTok) / 1e6,
};

/** BudgetCounter's view of the calls in flight when a test has none. */
export const NOTHING_IN_FLIGHT = {
  spendEpoch: () => 0,
  inFlight: () => ({ reservations: [], unsent: { costCents: 0, calls: [] } }),
  leaseMs: 30_000,
};

export function testKey(fields: Partial<VirtualKey> = {}): VirtualKey {
  return {
    id: 'key_test',
    name: 'test',
    allowedModels: ['*'],
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
    ...fields,
  };
}

export function testDeployment(fields: Partial<Deployment> = {}): Deployment {
  return {
    id: 'dep_test',
    publicModel: 'm',
    provider: 'openai',
    upstreamModel: 'cataloged',
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

/** The pool admission prices a call on, made of `deployments`. */
export function testPool(deployments: readonly Deployment[]): RoutedPool {
  return { deployments, ids: new Set(deployments.map((deployment) => deployment.id)) };
}

/** A call of `key` (null: the master key) with `body` over the default Chat body to model `m`. */
export function testContext(key: VirtualKey | null, body: Partial<EndpointBody> = {}): CallContext {
  return testCallContext({
    principal: key === null ? { kind: 'master' } : { kind: 'virtual', key },
    body: { model: 'm', messages: [], ...body },
  });
}
