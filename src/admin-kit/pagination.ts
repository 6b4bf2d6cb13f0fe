import { z } from 'zod';
import { GatewayError } from '../errors/gateway-error.ts';

/** Page size when `limit` is absent, and the largest one accepted. */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 200;

/** `?limit=&cursor=` of every admin list (DESIGN.md section 5: `{ data, nextCursor }`). */
export const pageQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_LIMIT)
    .default(DEFAULT_PAGE_LIMIT)
    .meta({ description: `Items per page, 1 to ${MAX_PAGE_LIMIT} (default ${DEFAULT_PAGE_LIMIT}).` }),
  cursor: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'The `nextCursor` of the previous page; absent for the first page.' }),
});

export type PageQuery = z.infer<typeof pageQuerySchema>;

/** A page request as repositories take it: items after `afterId`, in id order. */
export interface PageRequest {
  limit: number;
  afterId: string | null;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** The list answer schema around an item schema. */
export function pageSchema<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      data: z.array(item),
      nextCursor: z
        .string()
        .nullable()
        .meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
    })
    .meta({ id });
}

const CURSOR_ID = /^[a-z]+_[A-Za-z0-9]{1,64}$/;

/**
 * Cursors are opaque to clients (base64url of the last id seen) so their form can change without
 * breaking anyone; a cursor that does not decode to an id is a 400 naming `cursor`.
 */
export function pageRequest(query: PageQuery): PageRequest {
  if (query.cursor === undefined) return { limit: query.limit, afterId: null };
  const afterId = Buffer.from(query.cursor, 'base64url').toString('utf8');
  if (!CURSOR_ID.test(afterId) || encodeCursor(afterId) !== query.cursor) {
    throw new GatewayError('invalid_request', {
      param: 'cursor',
      message: "Invalid value for 'cursor': use the nextCursor of a previous page.",
    });
  }
  return { limit: query.limit, afterId };
}

export function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

/**
 * Builds a page from rows fetched with `limit + 1`: the extra row only says that another page
 * exists, and is not returned.
 */
export function toPage<Row extends { id: string }, T>(
  rows: readonly Row[],
  limit: number,
  render: (row: Row) => T,
): Page<T> {
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  return {
    data: shown.map(render),
    nextCursor: more ? encodeCursor(shown[shown.length - 1].id) : null,
  };
}
