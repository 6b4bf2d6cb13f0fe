import { GatewayError } from '../../errors/gateway-error.ts';

/** A field the upstream or the target format cannot take: a 400 naming it (STYLE.md point 4), never a silent drop. */
export function unsupportedParameter(param: string, message?: string): GatewayError {
  return new GatewayError('unsupported_parameter', {
    param,
    message: message ?? `The parameter '${param}' is not supported by this model.`,
  });
}
