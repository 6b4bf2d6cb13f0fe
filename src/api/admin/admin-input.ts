import type { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.ts';
import { invalidFieldError, issueParam } from '../../errors/invalid-field.ts';

/** Where an admin input comes from; a query or path field is named as it is, a body field by its path. */
export type InputLocation = 'body' | 'query' | 'path';

/**
 * Parses an admin input with its zod schema and turns a failure into 400 invalid_request whose
 * `param` names the field (DESIGN.md section 5: "a 400 naming the bad field"). Unknown keys are
 * named too, which the generic ZodError mapping cannot do (zod reports them at the parent path).
 * Messages come from the schemas and never quote the input, so a rejected `apiKey` cannot leak.
 */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, location: InputLocation): T {
  const unstorable = unstorableTextAt(value);
  if (unstorable !== null) {
    const param = unstorable.join('.');
    throw new GatewayError('invalid_request', {
      param: param === '' ? null : param,
      message: `Invalid value for '${param}': text may not contain NUL characters or unpaired surrogates.`,
    });
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const param = issueParam(issue);
  if (param === '') {
    const what = location === 'body' ? 'The request body' : `The ${location} parameters`;
    throw new GatewayError('invalid_request', { message: `${what}: ${issue.message}` });
  }
  throw invalidFieldError(issue, param);
}

/** Text Postgres refuses: NUL in `text`, and an unpaired surrogate (`\ud800`) in `jsonb`. */
function isStorableText(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000');
}

/**
 * The path of the first string (or object key) of `value` the database cannot store, or null.
 * Checked at the edge: the database refused such a row with an error that surfaced as a 500.
 */
function unstorableTextAt(value: unknown): string[] | null {
  const stack: Array<[unknown, string[]]> = [[value, []]];
  while (stack.length > 0) {
    const [node, path] = stack.pop() as [unknown, string[]];
    if (typeof node === 'string') {
      if (!isStorableText(node)) return path;
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    for (const [key, child] of Object.entries(node)) {
      if (!isStorableText(key)) return path;
      stack.push([child, [...path, key]]);
    }
  }
  return null;
}
