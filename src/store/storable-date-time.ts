import { z } from 'zod';

/** Postgres has no year 0 and JavaScript dates end in 275760: years 1 to 9999 are stored as sent. */
const FIRST_YEAR = 1;
const LAST_YEAR = 9999;

/**
 * An RFC 3339 date-time the database can store: a year 0000 (or an offset that moves the instant
 * into it) passes the format check but is refused by Postgres, so it is a 400 here instead.
 */
export function storableDateTime(error = 'expected an ISO 8601 date-time, e.g. 2030-01-01T00:00:00Z') {
  return z.iso.datetime({ offset: true, error }).refine(
    (text) => {
      const year = new Date(text).getUTCFullYear();
      return year >= FIRST_YEAR && year <= LAST_YEAR;
    },
    { error: `expected a date-time between the years ${FIRST_YEAR} and ${LAST_YEAR}` },
  );
}
