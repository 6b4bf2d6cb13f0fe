import { GatewayError } from '../../errors/gateway-error.ts';

/** A field the upstream or the target format cannot take: a 400 naming it, never a silent drop: a client must know its setting was not applied. */
export function unsupportedParameter(param: string, message?: string): GatewayError {
  return new GatewayError('unsupported_parameter', {
    param,
    message: message ?? `The parameter '${param}' is not supported by this model.`,
  });
}

/**
 * OpenAI's deprecated `function` message: its result names no call, so a format whose tool
 * results answer a call by its id (Claude, Gemini, Bedrock) cannot take it. Refused with what to
 * send instead, never dropped.
 */
export function functionMessageRefused(at: string): GatewayError {
  return unsupportedParameter(
    `${at}.role`,
    "A message with the deprecated role 'function' cannot be sent to this model: send the result as a 'tool' message with the 'tool_call_id' of the call it answers.",
  );
}
