import type { z } from 'zod';
import { CommandError, EXIT } from './exit-codes.ts';

/** A command's options read with the admin API's own schema; a bad one is a usage error naming the field. */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new CommandError(`${issue.path.join('.') || 'input'}: ${issue.message}`, EXIT.usage);
}
