import type { z } from 'zod';
import { storableDateTime } from '../../store/storable-date-time.ts';

const time = storableDateTime();

/**
 * `since`/`until` of the admin lists: RFC 3339 with an offset; a malformed date, an impossible one
 * or one Postgres cannot store is a 400.
 */
export function timeRangeQuery(what: string) {
  return {
    since: time.optional().meta({ description: `Inclusive lower bound of the ${what} (RFC 3339).` }),
    until: time.optional().meta({ description: `Exclusive upper bound of the ${what} (RFC 3339).` }),
  };
}

/** An empty range is a mistake worth a 400 naming `until`, not an empty page. */
export function timeRangeRefinement(
  value: { since?: string; until?: string },
  context: z.RefinementCtx,
): void {
  if (value.since === undefined || value.until === undefined) return;
  if (Date.parse(value.until) <= Date.parse(value.since)) {
    context.addIssue({ code: 'custom', path: ['until'], message: 'must be later than since' });
  }
}

/** The Date of a validated time parameter. */
export function dateOf(text: string | undefined): Date | undefined {
  return text === undefined ? undefined : new Date(text);
}
