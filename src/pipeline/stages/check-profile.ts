import type { Deployment } from '../../deployments/deployment.ts';
import {
  describeParamRule,
  findParamViolation,
  profileAllowsTransport,
} from '../../deployments/operation-profile.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { planOperation } from '../../providers/registry.ts';
import type { Transport } from '../../providers/types.ts';
import type { CallContext } from '../call-context.ts';
import { CONTINUE, type Stage } from '../stage.ts';
import { eligibleFacts, narrowEligible, type PoolSource } from './eligible-deployments.ts';

/** How the call travels: a multipart upload, a stream of events, or one JSON answer. */
function transportOf(ctx: CallContext): Transport {
  if (ctx.endpoint.requestFormat === 'multipart') return 'multipart';
  return ctx.stream ? 'sse' : 'json';
}

const TRANSPORT_REFUSALS: Readonly<Record<Transport, { param: string | null; message: string }>> =
  Object.freeze({
    sse: { param: 'stream', message: 'This model does not stream: set stream to false.' },
    json: { param: 'stream', message: 'This model only answers streamed requests: set stream to true.' },
    multipart: { param: null, message: 'This model does not accept multipart/form-data uploads.' },
  });

function unsupported(param: string | null, message: string): GatewayError {
  return new GatewayError('unsupported_parameter', { param, message });
}

/** Why `deployment` cannot take the call as its operation profile stands, or null. */
function profileRefusal(ctx: CallContext, deployment: Deployment): GatewayError | null {
  const operation = ctx.endpoint.operation;
  const transport = transportOf(ctx);
  if (!profileAllowsTransport(deployment.profile, operation, transport)) {
    const refusal = TRANSPORT_REFUSALS[transport];
    return unsupported(refusal.param, refusal.message);
  }
  if (
    ctx.stream &&
    planOperation(deployment.provider, operation, deployment)?.adapter.createStreamDecoder === undefined
  ) {
    return unsupported('stream', TRANSPORT_REFUSALS.sse.message);
  }
  const violation = findParamViolation(deployment.profile, operation, ctx.body);
  if (violation === null) return null;
  return unsupported(
    violation.param,
    `Invalid value for '${violation.param}': this model accepts ${describeParamRule(violation.rule)}.`,
  );
}

/**
 * SPEC.md (Errors) `unsupported_parameter`: a parameter value outside the deployment's operation
 * profile (an image `size`, `response_format`, `quality`...), or a transport the profile does not
 * list (`stream` on a deployment without `sse`). Never a silent clamp: the client would get an answer to a request it did not make.
 */
export function checkProfile(pool: PoolSource): Stage {
  return {
    name: 'check-profile',
    run(ctx) {
      const facts = eligibleFacts(ctx, pool);
      if (facts?.unprofiled && (facts.streams || !ctx.stream)) return CONTINUE;
      narrowEligible(ctx, pool, (deployment) => profileRefusal(ctx, deployment));
      return CONTINUE;
    },
  };
}
