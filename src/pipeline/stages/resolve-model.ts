import { GatewayError } from '../../errors/gateway-error.ts';
import { CONTINUE, type Stage } from '../stage.ts';
import type { PoolSource } from './eligible-deployments.ts';

/**
 * SPEC.md (Errors): no enabled deployment of the public model serves this operation: 404
 * model_not_found. Starts `ctx.eligibleDeploymentIds` afresh with the pool that serves it, which
 * the following pre-flight stages narrow.
 */
export function resolveModel(pool: PoolSource): Stage {
  return {
    name: 'resolve-model',
    run(ctx) {
      const served = pool.poolOf(ctx.publicModel, ctx.endpoint.operation).ids;
      if (served.size === 0) throw new GatewayError('model_not_found', { param: 'model' });
      ctx.eligibleDeploymentIds = served;
      return CONTINUE;
    },
  };
}
