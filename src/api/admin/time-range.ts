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

/** An empty range is a mistake worth a 400 naming its upper bound (`until`, `to`), not an empty page. */
export function rangeOrderRefinement<Lower extends string, Upper extends string>(lower: Lower, upper: Upper) {
  return (value: Partial<Record<Lower | Upper, string>>, context: z.RefinementCtx): void => {
    const [start, end] = [value[lower], value[upper]];
    if (start === undefined || end === undefined) return;
    if (Date.parse(end) <= Date.parse(start)) {
      context.addIssue({ code: 'custom', path: [upper], message: `must be later than ${lower}` });
    }
  };
}

/** `since`/`until` of the admin lists, in order. */
export const timeRangeRefinement = rangeOrderRefinement('since', 'until');

/** The Date of a validated time parameter. */
export function dateOf(text: string | undefined): Date | undefined {
  return text === undefined ? undefined : new Date(text);
}
