import type { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.ts';

/** Where an admin input comes from; a query or path field is named as it is, a body field by its path. */
export type InputLocation = 'body' | 'query' | 'path';

/**
 * Parses an admin input with its zod schema and turns a failure into 400 invalid_request whose
 * `param` names the field (DESIGN.md section 5: "a 400 naming the bad field"). Unknown keys are
 * named too, which the generic ZodError mapping cannot do (zod reports them at the parent path).
 * Messages come from the schemas and never quote the input, so a rejected `apiKey` cannot leak.
 */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, location: InputLocation): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') path.push(issue.keys[0]);
  const param = path.join('.');
  if (param === '') {
    const what = location === 'body' ? 'The request body' : `The ${location} parameters`;
    throw new GatewayError('invalid_request', { message: `${what}: ${issue.message}` });
  }
  const message =
    issue.code === 'unrecognized_keys'
      ? `Unknown field '${param}'.`
      : `Invalid value for '${param}': ${issue.message}`;
  throw new GatewayError('invalid_request', { param, message });
}
