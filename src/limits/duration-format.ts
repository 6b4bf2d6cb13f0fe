/**
 * A duration in OpenAI's `x-ratelimit-reset-*` format, which is Go's `time.Duration` string:
 * `0s`, `250ms`, `1s`, `1.5s`, `6m0s`, `1h2m3.25s`. Below one second the unit is milliseconds;
 * above it, hours and minutes are whole and seconds keep up to three decimals (no trailing zeros).
 * The input is rounded up to a whole millisecond: a client told to wait less than the truth
 * would retry too early.
 */
export function formatResetDuration(durationMs: number): string {
  const ms = Math.max(0, Math.ceil(durationMs));
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = formatSeconds(ms % 60_000);
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

/** `1500` -> `1.5`, `2000` -> `2`, `1001` -> `1.001`. */
function formatSeconds(ms: number): string {
  const whole = Math.floor(ms / 1000);
  const fraction = ms % 1000;
  if (fraction === 0) return String(whole);
  return `${whole}.${String(fraction).padStart(3, '0').replace(/0+$/, '')}`;
}
