/**
 * The pieces every client format's body schema shares (formats/<name>/body-schema.ts): the fields
 * every inference body has, and the helpers that make a wrong type a 400 naming the field.
 *
 * Each field that is present must have its documented type, and a part or item of a known type
 * must carry the fields that type needs; anything else passes through (loose objects, unknown
 * part types) for the upstream to judge. Checked here, a `null` or a number where a list or a text
 * belongs is a 400 naming the field, not a TypeError in a translator (a 500).
 */
import { z } from 'zod';

export const text = z.string();
/**
 * A JSON object of any members (a tool's schema, a tool call's input). A loose object with no
 * known keys, not a record: a record runs a key schema and a value schema on every member, a large
 * share of the body's validation for an agent's tools (docs/decisions/hot-path.md, Tool schemas
 * checked as loose objects).
 */
export const jsonObject = z.looseObject({});

/** `fields` must be present when `type` is `typeName`: the message names the first missing one. */
export function requireFor<T extends { type?: string }>(
  typeName: string,
  fields: readonly (keyof T & string)[],
) {
  return (value: T, ctx: z.core.$RefinementCtx<T>) => {
    if (value.type !== typeName) return;
    for (const field of fields) {
      if (value[field] === undefined || value[field] === null) {
        ctx.addIssue({
          code: 'custom',
          message: `${field} is required for type ${typeName}`,
          path: [field],
        });
        return;
      }
    }
  };
}

/** A list where one is required: `null` is refused like any other non-list. */
export function listOf<T extends z.ZodType>(item: T, what: string) {
  return z.array(item, { error: `${what} must be a list` });
}

export const model = z.string().min(1, 'model is required').meta({ description: 'A public model name.' });
export const stream = z.boolean().nullish();
/** Tools are a list of objects; `null` is refused like any other non-list (the translators need a list). */
export const toolList = <T extends z.ZodType>(tool: T) => listOf(tool, 'tools').optional();
export const count = z.number().int('expected an integer').positive('expected a positive integer');
