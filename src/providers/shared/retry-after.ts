/**
 * Reads how long an upstream asks us to wait. `retry-after-ms` (milliseconds, sent by OpenAI and
 * Azure) wins over `retry-after` (RFC 9110 section 10.2.3: delay-seconds or an HTTP-date).
 */
export function retryAfterSeconds(
  headers: Readonly<Record<string, string>>,
  nowMs: number = Date.now(),
): number | undefined {
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms !== undefined) {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value / 1000;
  }
  const raw = headerValue(headers, 'retry-after');
  if (raw === undefined) return undefined;
  const seconds = Number(raw);
  if (raw.trim() !== '' && Number.isFinite(seconds)) return seconds >= 0 ? seconds : undefined;
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, (date - nowMs) / 1000);
}

/** Header lookup that does not depend on the transport lower-casing names. */
export function headerValue(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  const direct = headers[name];
  if (direct !== undefined) return direct;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}
