const DAY_MS = 86_400_000;

/** Midnight UTC of the day holding `date`. */
export function utcDay(date: Date): Date {
  return new Date(Math.floor(date.getTime() / DAY_MS) * DAY_MS);
}

export function addDays(day: Date, days: number): Date {
  return new Date(day.getTime() + days * DAY_MS);
}

/** `20240131` for 2024-01-31 (UTC). */
export function compactDate(day: Date): string {
  return day.toISOString().slice(0, 10).replaceAll('-', '');
}

/** Inverse of compactDate; null when `text` is not a valid yyyymmdd date. */
export function parseCompactDate(text: string): Date | null {
  if (!/^\d{8}$/.test(text)) return null;
  const date = new Date(`${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}T00:00:00Z`);
  return Number.isNaN(date.getTime()) || compactDate(date) !== text ? null : date;
}
