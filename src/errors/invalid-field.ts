import type { z } from 'zod';
import { GatewayError } from './gateway-error.ts';

/**
 * The field a zod issue is about, as a dotted path under `prefix`. An unknown key is named by its
 * own name, which zod reports at its parent's path.
 */
export function issueParam(issue: z.core.$ZodIssue, prefix: readonly string[] = []): string {
  const path = [...prefix, ...issue.path.map(String)];
  if (issue.code === 'unrecognized_keys') path.push(issue.keys[0]);
  return path.join('.');
}

/**
 * 400 invalid_request naming `param` (DESIGN.md section 5: "a 400 naming the bad field"), in the
 * schema's words: the message never quotes the input, so a rejected credential cannot leak.
 */
export function invalidFieldError(issue: z.core.$ZodIssue, param: string): GatewayError {
  const message =
    issue.code === 'unrecognized_keys'
      ? `Unknown field '${param}'.`
      : `Invalid value for '${param}': ${issue.message}`;
  return new GatewayError('invalid_request', { param, message });
}
