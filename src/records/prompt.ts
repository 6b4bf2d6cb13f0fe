import type { Json } from '../formats/json.ts';
import type { Operation } from '../formats/operation.ts';
import { OPERATION_SPECS } from '../formats/operation-spec.ts';

/**
 * The prompt as a record keeps it (SPEC.md, Request log records: "Prompts stored in logs are
 * truncated to MAX_STRING_LENGTH_PROMPT_IN_DB"): the text of the prompt-bearing fields of the
 * operation's body (formats/operation-spec.ts), never the whole body.
 */
export function promptOf(operation: Operation, body: Readonly<Json>, maxLength: number): string | null {
  if (maxLength === 0) return null;
  // Cut before cleaning: a 24 MB prompt kept as 2,048 characters need not be scanned whole, nor
  // joined whole (prompt-text.ts collects only what is asked). The cut leaves room for the NULs
  // cleaning removes; one character more lets it see a surrogate pair the cut would split.
  const text = OPERATION_SPECS[operation].promptText(body, 2 * maxLength + 1);
  if (text === null) return null;
  return truncate(cleanText(truncate(text, 2 * maxLength)), maxLength);
}

/**
 * Postgres text and jsonb refuse NUL, and a lone surrogate cannot be encoded in UTF-8 (JSON sent to
 * Postgres refuses it too): one such character must not cost a record its write. NUL is removed, a
 * lone surrogate becomes U+FFFD.
 */
export function cleanText(text: string): string {
  const clean = text.includes('\u0000') ? text.replaceAll('\u0000', '') : text;
  return clean.isWellFormed() ? clean : clean.toWellFormed();
}

/** Cuts to at most `maxLength` UTF-16 units without splitting a surrogate pair. */
export function truncate(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  const end = isHighSurrogate(text.charCodeAt(maxLength - 1)) ? maxLength - 1 : maxLength;
  return text.slice(0, end);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
