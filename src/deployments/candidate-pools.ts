import { getProviderAdapter, type OperationPlan, planOperation } from '../providers/registry.ts';
import type { Operation, ProviderAdapter } from '../providers/types.ts';
import type { Deployment } from './deployment.ts';

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
}

/** The pool of a public model for an operation. */
export type PoolOf = (publicModel: string, operation: Operation) => CandidatePool;

const EMPTY_POOL: CandidatePool = Object.freeze({
  candidates: Object.freeze([]),
  deployments: Object.freeze([]),
  ids: new Set<string>(),
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
  });
}

/** True when the deployment is enabled and its profile allows the operation. */
function servesOperation(deployment: Deployment, operation: Operation): boolean {
  if (!deployment.enabled) return false;
  const profiled = deployment.profile?.operations;
  return profiled === undefined || profiled[operation] !== undefined;
}
