import type { PoolFacts } from '../../deployments/candidate-pools.ts';
import type { Deployment } from '../../deployments/deployment.ts';
import type { DeploymentDirectory } from '../../deployments/deployment-directory.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { CallContext } from '../call-context.ts';

/** What the pre-flight stages read of the deployment directory. */
export type PoolSource = Pick<DeploymentDirectory, 'deploymentsOf' | 'poolOf'>;

/**
 * What holds for every deployment still eligible for the call: the facts of the pool that
 * resolve-model started the eligible set from, which hold for any part of it too. Null before
 * resolve-model ran, when every deployment of the model counts as eligible.
 */
export function eligibleFacts(ctx: CallContext, pool: PoolSource): PoolFacts | null {
  if (ctx.eligibleDeploymentIds === undefined) return null;
  return pool.poolOf(ctx.publicModel, ctx.endpoint.operation).facts;
}

/**
 * Keeps the eligible deployments that `refusal` finds nothing wrong with. A check passes when at
 * least one deployment of the pool accepts the call; when none does, the call is refused with the
 * first deployment's reason.
 */
export function narrowEligible(
  ctx: CallContext,
  pool: PoolSource,
  refusal: (deployment: Deployment) => GatewayError | null,
): void {
  const ids = ctx.eligibleDeploymentIds;
  const kept = new Set<string>();
  let eligible = 0;
  let first: GatewayError | null = null;
  for (const deployment of pool.deploymentsOf(ctx.publicModel)) {
    if (ids !== undefined && !ids.has(deployment.id)) continue;
    eligible += 1;
    const reason = refusal(deployment);
    if (reason === null) kept.add(deployment.id);
    else first ??= reason;
  }
  if (kept.size === 0) throw first ?? new GatewayError('model_not_found', { param: 'model' });
  // Unchanged, the set stays the one it was (the pool's own, which the router then takes whole).
  if (kept.size < eligible) ctx.eligibleDeploymentIds = kept;
}
