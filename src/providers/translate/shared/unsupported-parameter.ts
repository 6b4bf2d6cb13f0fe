import { GatewayError } from '../../../errors/gateway-error.ts';
import { unsupportedParameter } from '../../shared/unsupported-parameter.ts';

/** A value the client sent that cannot be read (e.g. tool arguments that are not JSON). */
export function invalidParameter(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', { param, message });
}

/**
 * Refuses the first top-level field that is neither translated nor a documented hint. Unknown
 * fields would otherwise vanish in translation. `null`, `undefined` and the values listed as
 * neutral for a field (e.g. `n: 1`) are accepted.
 */
export function rejectUntranslatable(
  body: Readonly<Record<string, unknown>>,
  translated: ReadonlySet<string>,
  neutral: Readonly<Record<string, readonly unknown[]>> = {},
): void {
  for (const [key, value] of Object.entries(body)) {
    if (translated.has(key) || value === null || value === undefined) continue;
    if (neutral[key]?.some((allowed) => allowed === value)) continue;
    throw unsupportedParameter(key);
  }
}

/** Parses tool-call arguments written as JSON text into an object. */
export function parseToolArguments(text: string, param: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidParameter(param, 'Tool call arguments must be a JSON object.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidParameter(param, 'Tool call arguments must be a JSON object.');
  }
  return value as Record<string, unknown>;
}

/** Strips a known id prefix so that a translated id keeps the upstream's unique part. */
export function idSuffix(id: string, prefix: string): string {
  return id.startsWith(prefix) ? id.slice(prefix.length) : id;
}
