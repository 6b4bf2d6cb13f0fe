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
