import { getProviderAdapter, type OperationPlan, planOperation } from '../providers/registry.ts';
import type { Operation, ProviderAdapter } from '../providers/types.ts';
import type { Deployment } from './deployment.ts';

/** A deployment that can serve the call, with how it serves it. */
export interface Candidate {
  deployment: Deployment;
  provider: ProviderAdapter;
  plan: OperationPlan;
}

/** True when the deployment is enabled, its profile allows the operation and its provider can serve it. */
export function servesOperation(deployment: Deployment, operation: Operation): boolean {
  if (!deployment.enabled) return false;
  const profiled = deployment.profile?.operations;
  if (profiled !== undefined && profiled[operation] === undefined) return false;
  return planOperation(deployment.provider, operation) !== null;
}

/** The pool of SPEC.md "Runtime behaviours": every enabled deployment serving the operation. */
export function candidatesFor(deployments: readonly Deployment[], operation: Operation): Candidate[] {
  const candidates: Candidate[] = [];
  for (const deployment of deployments) {
    if (!servesOperation(deployment, operation)) continue;
    const plan = planOperation(deployment.provider, operation);
    const provider = getProviderAdapter(deployment.provider);
    if (plan !== null && provider !== null) candidates.push({ deployment, provider, plan });
  }
  return candidates;
}
