import type { Deployment } from '../../deployments/deployment.ts';
import { catalogEntryOf } from '../../deployments/deployment-catalog.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { CAPABILITY_PARAMS, type Capability, type CapabilityUse } from '../../formats/capability-use.ts';
import type { Operation } from '../../providers/types.ts';
import { CONTINUE, type Stage } from '../stage.ts';
import { eligibleFacts, narrowEligible, type PoolSource } from './eligible-deployments.ts';

const CAPABILITY_NAMES: Readonly<Record<Capability, string>> = Object.freeze({
  tools: 'tools',
  vision: 'image inputs',
  reasoning: 'reasoning',
  structuredOutputs: 'structured outputs (json_schema)',
});

/** True when the catalog entry declares the capability, or the profile gives rules for its fields. */
function declares(deployment: Deployment, operation: Operation, capability: Capability): boolean {
  if (catalogEntryOf(deployment).capabilities[capability]) return true;
  const params = deployment.profile?.operations[operation]?.params;
  return params !== undefined && CAPABILITY_PARAMS[capability].some((name) => name in params);
}

function capabilityRefusal(
  deployment: Deployment,
  operation: Operation,
  uses: readonly CapabilityUse[],
): GatewayError | null {
  const missing = uses.find((use) => !declares(deployment, operation, use.capability));
  if (missing === undefined) return null;
  return new GatewayError('unsupported_model_capability', {
    param: missing.param,
    message: `The model does not support ${CAPABILITY_NAMES[missing.capability]}.`,
  });
}

/**
 * SPEC.md (Errors) `unsupported_model_capability`: the request uses tools, vision, reasoning or
 * structured outputs that the model's catalog entry (with the deployment's overrides) does not
 * declare, nor its profile.
 */
export function checkCapabilities(pool: PoolSource): Stage {
  return {
    name: 'check-capabilities',
    run(ctx) {
      const operation = ctx.endpoint.operation;
      const uses = ctx.endpoint.format?.capabilitiesUsed(ctx.body) ?? [];
      if (uses.length === 0) return CONTINUE;
      const declared = eligibleFacts(ctx, pool)?.declaredByAll;
      if (declared !== undefined && uses.every((use) => declared.has(use.capability))) return CONTINUE;
      narrowEligible(ctx, pool, (deployment) => capabilityRefusal(deployment, operation, uses));
      return CONTINUE;
    },
  };
}
