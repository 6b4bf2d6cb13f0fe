import { mayUseModel } from '../../auth/principal.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { CONTINUE, type Stage } from '../stage.ts';

/**
 * SPEC.md (Authentication): a model outside the key's `allowedModels` is 403 model_not_allowed.
 * Runs before the model is resolved, so a key cannot probe which models exist outside its scope.
 */
export const checkScope: Stage = {
  name: 'check-scope',
  run(ctx) {
    if (!mayUseModel(ctx.principal, ctx.publicModel))
      throw new GatewayError('model_not_allowed', { param: 'model' });
    return CONTINUE;
  },
};
