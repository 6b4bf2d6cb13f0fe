/** The JSON object type the formats' builders, replay and assembly modules read and write. */
export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets `holder.model` where the holder already names one (objects are changed in place). */
export function setModel(holder: unknown, model: string): void {
  if (isRecord(holder) && typeof holder.model === 'string') holder.model = model;
}

/** The value of a JSON text; undefined (which JSON cannot spell) when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
