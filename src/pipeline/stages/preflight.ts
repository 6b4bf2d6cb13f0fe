import type { Stage } from '../stage.ts';
import { checkCapabilities } from './check-capabilities.ts';
import { checkContextWindow } from './check-context-window.ts';
import { checkProfile } from './check-profile.ts';
import { checkScope } from './check-scope.ts';
import type { PoolSource } from './eligible-deployments.ts';
import { resolveModel } from './resolve-model.ts';

export interface PreflightDeps {
  /** The deployments by public model (the DeploymentDirectory). */
  directory: PoolSource;
}

/**
 * The model-level pre-flight checks, in order (DESIGN.md section 4: resolve public model -> key
 * scope -> capability / profile / context checks), each its own stage and SPEC.md code:
 * model_not_allowed, model_not_found, unsupported_parameter, unsupported_model_capability,
 * context_length_exceeded. They read only ctx.publicModel, ctx.body, ctx.endpoint, ctx.stream
 * and ctx.principal, and write ctx.eligibleDeploymentIds (reset by resolve-model) and the
 * memoised ctx.estimatedInputTokens: the router re-runs exactly this list for each fallback model
 * of a chain after setting ctx.publicModel. Built once at start-up.
 */
export function createPreflightStages(deps: PreflightDeps): Stage[] {
  const { directory } = deps;
  return [
    checkScope,
    resolveModel(directory),
    checkProfile(directory),
    checkCapabilities(directory),
    checkContextWindow(directory),
  ];
}
