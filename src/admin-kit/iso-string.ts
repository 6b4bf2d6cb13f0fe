/** Timestamps come back as Date from the driver; the generated-column type does not say so. */
export function isoString(value: unknown): string {
  return new Date(value as Date | string).toISOString();
}
