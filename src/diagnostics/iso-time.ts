/**
 * `new Date(ms).toISOString()`, with the text up to the second kept between calls: every call
 * writes an access line and record rows, each with timestamps, and `toISOString` showed in every
 * profile (docs/decisions/hot-path.md). Calls of the same second only append milliseconds.
 */
let cachedSecond = Number.NaN;
let cachedPrefix = '';

export function isoTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    // Throws RangeError for a time outside the Date range, like toISOString.
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, -4);
    cachedSecond = second;
  }
  const milli = Math.floor(ms - second * 1000);
  return `${cachedPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}
