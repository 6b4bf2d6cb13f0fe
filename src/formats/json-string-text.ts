import { parseJson } from './json.ts';

/**
 * Reading a JSON string's value from the text of a larger JSON document without parsing the
 * document: what the stream readers that pass an event on unparsed need (chat-completions/
 * chunk-text.ts, messages/delta-text.ts).
 */

const BACKSLASH = 92;

/** The first quote at or after `from` that no backslash escapes, or -1. */
export function closingQuote(text: string, from: number): number {
  for (let at = text.indexOf('"', from); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

/**
 * The value of the string whose characters run from `start` to the closing quote at `end`: the
 * text itself when it has no escape, else the literal parsed; null when it is not a JSON string.
 */
export function stringValue(text: string, start: number, end: number): string | null {
  const raw = text.slice(start, end);
  if (!raw.includes('\\')) return raw;
  const value = parseJson(text.slice(start - 1, end + 1));
  return typeof value === 'string' ? value : null;
}
