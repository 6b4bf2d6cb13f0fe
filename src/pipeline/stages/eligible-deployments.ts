import type { Deployment } from '../../deployments/deployment.ts';
import type { DeploymentDirectory } from '../../deployments/deployment-directory.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { CallContext } from '../call-context.ts';

/** What the pre-flight stages read of the deployment directory. */
export type PoolSource = Pick<DeploymentDirectory, 'deploymentsOf' | 'poolOf'>;

/** The deployments of `ctx.publicModel` still eligible for the call (all of them before resolve-model ran). */
export function eligibleDeployments(ctx: CallContext, pool: PoolSource): Deployment[] {
  const ids = ctx.eligibleDeploymentIds;
  const all = pool.deploymentsOf(ctx.publicModel);
  return ids === undefined ? [...all] : all.filter((deployment) => ids.has(deployment.id));
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
  const kept = new Set<string>();
  let first: GatewayError | null = null;
  const eligible = eligibleDeployments(ctx, pool);
  for (const deployment of eligible) {
    const reason = refusal(deployment);
    if (reason === null) kept.add(deployment.id);
    else first ??= reason;
  }
  if (kept.size === 0) throw first ?? new GatewayError('model_not_found', { param: 'model' });
  // Unchanged, the set stays the one it was (the pool's own, which the router then takes whole).
  if (kept.size < eligible.length) ctx.eligibleDeploymentIds = kept;
}
