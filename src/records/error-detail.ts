import type { GatewayError } from '../errors/gateway-error.ts';
import { cleanText, truncate } from './prompt.ts';

/**
 * Upper bound of one stored error detail (the provider's status, message and body). Provider error
 * bodies are small; the bound only stops a misbehaving upstream from filling the table.
 */
export const MAX_ERROR_DETAIL_CHARS = 64 * 1024;

/** What a record keeps of a failure: the public code and class, and the private detail. */
export interface StoredError {
  code: string;
  errorClass: string;
  status: number;
  /** Provider status, message and body (SPEC.md: "The full provider error detail is kept here"). */
  detail: unknown;
}

export function storedError(error: GatewayError | null): StoredError | null {
  if (error === null) return null;
  return {
    code: error.code,
    errorClass: error.errorClass,
    status: error.status,
    detail: error.detail ?? null,
  };
}

/**
 * A plain object for a jsonb column: NUL-free strings, bigints as text, bounded in size. Returned
 * parsed, because the driver serializes what it is given (a string would be stored as a JSON string).
 */
export function jsonForDb(value: object | null): Record<string, unknown> | null {
  const text = jsonTextForDb(value);
  return text === null ? null : JSON.parse(text);
}

export function jsonTextForDb(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  let text: string;
  try {
    text = JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === 'string') return cleanText(item);
      if (typeof item === 'bigint') return item.toString();
      return item;
    });
  } catch {
    text = JSON.stringify({ unserializable: cleanText(String(value)) });
  }
  if (text === undefined) return null;
  if (text.length <= MAX_ERROR_DETAIL_CHARS) return text;
  return JSON.stringify({ truncated: true, text: truncate(text, MAX_ERROR_DETAIL_CHARS) });
}
