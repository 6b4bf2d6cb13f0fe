/** How the console writes figures: cents as dollars, counts with separators, times in UTC. */

const NUMBER = new Intl.NumberFormat('en-US');

export function count(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : NUMBER.format(value);
}

export function dollars(cents: number | null | undefined): string {
  if (cents === null || cents === undefined) return '–';
  const digits = Math.abs(cents) < 100 && cents !== 0 ? 4 : 2;
  return `$${(cents / 100).toFixed(digits)}`;
}

export function time(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return '–';
  return `${iso.slice(0, 19).replace('T', ' ')} UTC`;
}

export function millis(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : `${NUMBER.format(Math.round(value))} ms`;
}

/** A comma- or newline-separated list as typed into a field. */
export function listOf(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** A number field's value, or null when it is left empty. */
export function numberOrNull(text: string): number | null {
  return text.trim() === '' ? null : Number(text);
}

/** `datetime-local` input (taken as UTC) to RFC 3339. */
export function rfc3339(local: string): string | undefined {
  return local === '' ? undefined : new Date(`${local}:00Z`).toISOString();
}
