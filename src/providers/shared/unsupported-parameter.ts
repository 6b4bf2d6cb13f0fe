import { GatewayError } from '../../errors/gateway-error.ts';

/** A field the upstream or the target format cannot take: a 400 naming it, never a silent drop: a client must know its setting was not applied. */
export function unsupportedParameter(param: string, message?: string): GatewayError {
  return new GatewayError('unsupported_parameter', {
    param,
    message: message ?? `The parameter '${param}' is not supported by this model.`,
  });
}
