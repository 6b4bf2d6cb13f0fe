import { CAPABILITY_PARAMS, type Capability } from '../formats/capability-use.ts';
import { getProviderAdapter, type OperationPlan, planOperation } from '../providers/registry.ts';
import type { Operation, ProviderAdapter } from '../providers/types.ts';
import type { Deployment } from './deployment.ts';
import { catalogEntryOf } from './deployment-catalog.ts';

/** A deployment that can serve the call, with how it serves it. */
export interface Candidate {
  deployment: Deployment;
  provider: ProviderAdapter;
  plan: OperationPlan;
}

/** The pool of SPEC.md "Runtime behaviours": every enabled deployment of a public model serving an operation. */
export interface CandidatePool {
  /** In directory order, with how each serves the operation. */
  readonly candidates: readonly Candidate[];
  /** The same deployments. */
  readonly deployments: readonly Deployment[];
  /** Their ids. */
  readonly ids: ReadonlySet<string>;
  /** What holds for every member: what lets pre-flight pass a call without asking each one. */
  readonly facts: PoolFacts;
}

/**
 * Facts that hold for every member of a pool, gathered once when the pool is built: a pre-flight
 * check that every member would pass skips its walk of the pool, so a pool of thousands of
 * deployments costs a call what a pool of one does (docs/decisions/hot-path.md, "Pool facts").
 */
export interface PoolFacts {
  /** No member has an operation profile: none refuses a transport or a parameter value. */
  readonly unprofiled: boolean;
  /** Every member's provider decodes a stream of this operation. */
  readonly streams: boolean;
  /** The smallest context window the catalog knows among the members; null when it knows none. */
  readonly smallestContextWindow: number | null;
  /** The capabilities every member's catalog entry declares. */
  readonly declaredByAll: ReadonlySet<Capability>;
  /** Some member has its own `tpmLimit`: the router reserves the call's tokens under it. */
  readonly tokenLimited: boolean;
}

/** The pool of a public model for an operation. */
export type PoolOf = (publicModel: string, operation: Operation) => CandidatePool;

const EMPTY_POOL: CandidatePool = Object.freeze({
  candidates: Object.freeze([]),
  deployments: Object.freeze([]),
  ids: new Set<string>(),
  facts: factsOf([]),
});

/**
 * The pools of one snapshot of the deployments, each built the first time it is asked for and
 * kept with the snapshot (the directory makes one per load): a call reads its pool, where
 * pre-flight, the limits and the router each filtered the model's deployments again. A name no
 * deployment has gets the shared empty pool, so clients naming unknown models grow nothing.
 */
export function candidatePools(deploymentsOf: (publicModel: string) => readonly Deployment[]): PoolOf {
  const byOperation = new Map<Operation, Map<string, CandidatePool>>();
  return (publicModel, operation) => {
    let pools = byOperation.get(operation);
    if (pools === undefined) {
      pools = new Map();
      byOperation.set(operation, pools);
    }
    let pool = pools.get(publicModel);
    if (pool === undefined) {
      const deployments = deploymentsOf(publicModel);
      if (deployments.length === 0) return EMPTY_POOL;
      pool = poolFor(deployments, operation);
      pools.set(publicModel, pool);
    }
    return pool;
  };
}

function poolFor(deployments: readonly Deployment[], operation: Operation): CandidatePool {
  const candidates: Candidate[] = [];
  for (const deployment of deployments) {
    if (!servesOperation(deployment, operation)) continue;
    const plan = planOperation(deployment.provider, operation, deployment);
    const provider = getProviderAdapter(deployment.provider);
    if (plan !== null && provider !== null) candidates.push({ deployment, provider, plan });
  }
  return Object.freeze({
    candidates: Object.freeze(candidates),
    deployments: Object.freeze(candidates.map((candidate) => candidate.deployment)),
    ids: new Set(candidates.map((candidate) => candidate.deployment.id)),
    facts: factsOf(candidates),
  });
}

function factsOf(candidates: readonly Candidate[]): PoolFacts {
  let unprofiled = true;
  let streams = true;
  let smallestContextWindow: number | null = null;
  let tokenLimited = false;
  const declaredByAll = new Set(Object.keys(CAPABILITY_PARAMS) as Capability[]);
  for (const { deployment, plan } of candidates) {
    unprofiled &&= deployment.profile === null;
    streams &&= plan.adapter.createStreamDecoder !== undefined;
    tokenLimited ||= deployment.tpmLimit !== null;
    const { contextWindow, capabilities } = catalogEntryOf(deployment);
    if (contextWindow !== null)
      smallestContextWindow = Math.min(smallestContextWindow ?? contextWindow, contextWindow);
    for (const capability of declaredByAll) if (!capabilities[capability]) declaredByAll.delete(capability);
  }
  return Object.freeze({ unprofiled, streams, smallestContextWindow, declaredByAll, tokenLimited });
}

/** True when the deployment is enabled and its profile allows the operation. */
function servesOperation(deployment: Deployment, operation: Operation): boolean {
  if (!deployment.enabled) return false;
  const profiled = deployment.profile?.operations;
  return profiled === undefined || profiled[operation] !== undefined;
}
