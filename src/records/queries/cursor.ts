import { GatewayError } from '../../errors/gateway-error.ts';

/** An opaque keyset cursor: the (started_at, id) of the last row of a page, newest first. */
export interface PageCursor {
  startedAt: Date;
  id: string;
}

export function encodeCursor(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify([cursor.startedAt.toISOString(), cursor.id])).toString('base64url');
}

/** Null when `text` is not a cursor this server made. */
export function decodeCursor(text: string): PageCursor | null {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [time, id] = value as unknown[];
    if (typeof time !== 'string' || typeof id !== 'string') return null;
    const startedAt = new Date(time);
    return Number.isNaN(startedAt.getTime()) ? null : { startedAt, id };
  } catch {
    return null;
  }
}

/** A `cursor` query parameter: absent, or a cursor this server made (else a 400 naming `cursor`). */
export function cursorParam(text: string | undefined): PageCursor | undefined {
  if (text === undefined) return undefined;
  const cursor = decodeCursor(text);
  if (cursor === null) {
    throw new GatewayError('invalid_request', {
      param: 'cursor',
      message: "Invalid value for 'cursor': use the nextCursor of a previous page.",
    });
  }
  return cursor;
}

/**
 * A page of rows fetched newest first with `limit + 1`: the extra row only says another page
 * exists; the cursor names the last row shown.
 */
export function keysetPage<Row>(
  rows: readonly Row[],
  limit: number,
  cursorOf: (row: Row) => PageCursor,
): { rows: Row[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    rows: page,
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(cursorOf(last)) : null,
  };
}
