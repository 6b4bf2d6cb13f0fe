import { isJsonSpace } from './answer-text.ts';
import { isJsonNumber } from './json-number.ts';

/** Where a value is written in a JSON text: [start, end) in bytes, brackets or quotes included. */
export type Span = readonly [number, number];

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const COMMA = 44;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;

function skipSpace(text: Buffer, at: number): number {
  let i = at;
  while (isJsonSpace(text[i])) i++;
  return i;
}

/**
 * Bytes of a string looked at one by one before the search is handed to indexOf: a call into
 * Buffer's native code costs more than a loop over a short string, and most strings of an answer
 * or a request (keys, ids, roles) are short (docs/decisions/hot-path.md, Member keys compared as
 * bytes).
 */
const SCANNED_BYTES = 128;

/**
 * Index just past the JSON string whose opening quote is at `at`, or -1 (unterminated). Bytes, not
 * characters: a quote or a backslash is never part of a longer UTF-8 sequence. Past its first
 * SCANNED_BYTES it jumps with indexOf, so a megabyte of text costs no byte loop.
 */
function stringEnd(text: Buffer, at: number): number {
  const scannedEnd = Math.min(text.length, at + 1 + SCANNED_BYTES);
  let i = at + 1;
  for (; i < scannedEnd; i++) {
    const code = text[i];
    if (code === QUOTE) return i + 1;
    if (code === BACKSLASH) i++;
  }
  for (let quote = text.indexOf(QUOTE, i); quote !== -1; quote = text.indexOf(QUOTE, quote + 1)) {
    let backslashes = 0;
    while (text[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
  }
  return -1;
}

function hasBackslash(text: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text[i] === BACKSLASH) return true;
  return false;
}

/** Index just past the object or array opened at `at`, its strings jumped; -1 when unbalanced. */
function containerEnd(text: Buffer, at: number): number {
  let depth = 0;
  let i = at;
  while (i < text.length) {
    const code = text[i];
    if (code === QUOTE) {
      i = stringEnd(text, i);
      if (i === -1) return -1;
      continue;
    }
    if (code === OPEN_OBJECT || code === OPEN_ARRAY) depth++;
    else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/** A byte that ends a bare word or number: compared, not looked up, as it runs once per byte. */
function endsAWord(code: number): boolean {
  return (
    code === COMMA ||
    code === CLOSE_OBJECT ||
    code === CLOSE_ARRAY ||
    code === OPEN_OBJECT ||
    code === OPEN_ARRAY ||
    code === QUOTE ||
    code === COLON ||
    isJsonSpace(code)
  );
}

/** Index just past the value starting at `at` (a string, a container, or a bare word or number); -1 when there is none. */
function valueEnd(text: Buffer, at: number): number {
  const code = text[at];
  if (code === QUOTE) return stringEnd(text, at);
  if (code === OPEN_OBJECT || code === OPEN_ARRAY) return containerEnd(text, at);
  let i = at;
  while (i < text.length && !endsAWord(text[i])) i++;
  return i === at ? -1 : i;
}

/**
 * True when `a` from `aFrom` and `b` from `bFrom` hold the same `length` bytes: a loop, as the
 * keys compared are a few bytes long (docs/decisions/hot-path.md, Member keys compared as bytes).
 */
function sameBytes(a: Buffer, aFrom: number, b: Buffer, bFrom: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (a[aFrom + i] !== b[bFrom + i]) return false;
  return true;
}

/**
 * True when the key written at [start, end) (quotes included) was written before, at one of
 * `spans` (start and end pairs): its bytes compared, as an object has few top-level keys.
 */
function writtenBefore(text: Buffer, spans: readonly number[], start: number, end: number): boolean {
  const length = end - start;
  for (let s = 0; s < spans.length; s += 2) {
    if (spans[s + 1] - spans[s] === length && sameBytes(text, spans[s], text, start, length)) return true;
  }
  return false;
}

/**
 * The keys a scan looks for, with their UTF-8 bytes: a key written in the text is compared with
 * these bytes, never decoded into a string of its own (docs/decisions/hot-path.md, Member keys
 * compared as bytes).
 */
export class MemberKeys {
  readonly #keys: readonly string[];
  readonly #bytes: readonly Buffer[];

  constructor(keys: readonly string[]) {
    this.#keys = keys;
    this.#bytes = keys.map((key) => Buffer.from(key));
  }

  /** The key whose bytes are written at [from, to) of `text`, or undefined when none is. */
  at(text: Buffer, from: number, to: number): string | undefined {
    const length = to - from;
    for (let k = 0; k < this.#bytes.length; k++) {
      const bytes = this.#bytes[k];
      if (bytes.length === length && sameBytes(bytes, 0, text, from, length)) return this.#keys[k];
    }
    return undefined;
  }
}

/**
 * The top-level members of a JSON object's text that `keys` names, each with where its value is,
 * found without parsing: strings are jumped, brackets counted, nothing else is checked. Null
 * unless the text is one object of `"key": value` members: a key written with an escape (an
 * escaped `"mod\u0065l"` is the same key as `"model"`, unseen) or any key written twice makes it
 * null, so a key found here is the one a parser would read, and a text passed on holds no member
 * that another parser could read otherwise than the gateway did (JSON.parse keeps the last).
 */
export function topLevelMembers(text: Buffer, keys: MemberKeys): Map<string, Span> | null {
  let i = skipSpace(text, 0);
  if (text[i] !== OPEN_OBJECT) return null;
  const members = new Map<string, Span>();
  const keySpans: number[] = [];
  i = skipSpace(text, i + 1);
  if (text[i] === CLOSE_OBJECT) return skipSpace(text, i + 1) === text.length ? members : null;
  for (;;) {
    if (text[i] !== QUOTE) return null;
    const keyEnd = stringEnd(text, i);
    if (keyEnd === -1 || hasBackslash(text, i, keyEnd) || writtenBefore(text, keySpans, i, keyEnd))
      return null;
    keySpans.push(i, keyEnd);
    const key = keys.at(text, i + 1, keyEnd - 1);
    const colon = skipSpace(text, keyEnd);
    if (text[colon] !== COLON) return null;
    const start = skipSpace(text, colon + 1);
    const end = valueEnd(text, start);
    if (end === -1) return null;
    if (key !== undefined) members.set(key, [start, end]);
    i = skipSpace(text, end);
    if (text[i] === CLOSE_OBJECT) return skipSpace(text, i + 1) === text.length ? members : null;
    if (text[i] !== COMMA) return null;
    i = skipSpace(text, i + 1);
  }
}

/**
 * `text` with the value at `span` replaced by `written` (the new value's JSON bytes), as three
 * parts to be written one after the other: views of `text` around the new value's bytes, nothing
 * copied (docs/decisions/hot-path.md, Answer bytes written in parts).
 */
export function valueReplacedParts(text: Buffer, span: Span, written: Buffer): Buffer[] {
  return [text.subarray(0, span[0]), written, text.subarray(span[1])];
}

/**
 * `text` with the value at `span` replaced by `written`, as one new buffer: for a small text, one
 * copy costs less than the views of the parts and their join.
 */
export function valueReplaced(text: Buffer, span: Span, written: Buffer): Buffer {
  const [start, end] = span;
  const joined = Buffer.allocUnsafe(text.length - (end - start) + written.length);
  text.copy(joined, 0, 0, start);
  written.copy(joined, start);
  text.copy(joined, start + written.length, end);
  return joined;
}

/** Whether the value at `span` is written exactly as `bytes`. */
export function writtenAs(text: Buffer, span: Span, bytes: Buffer): boolean {
  const [start, end] = span;
  return end - start === bytes.length && sameBytes(bytes, 0, text, start, bytes.length);
}

/** The kind of value written at `span`, read from its first byte. */
export function writtenKind(text: Buffer, span: Span): 'string' | 'object' | 'array' | 'other' {
  const code = text[span[0]];
  if (code === QUOTE) return 'string';
  if (code === OPEN_OBJECT) return 'object';
  return code === OPEN_ARRAY ? 'array' : 'other';
}

/**
 * How a member must be written: a kind of value, or exactly these JSON bytes (a literal such as
 * `"chat.completion"`, made by `writtenExactly`).
 */
export type MemberRule = 'string' | 'number' | 'array' | 'object' | { bytes: Buffer };

/** The rule of a member written exactly as `json`; its bytes are made once, with the rule. */
export function writtenExactly(json: string): MemberRule {
  return { bytes: Buffer.from(json) };
}

/** Compared in place: an answer passed on is checked on every call, and a string made of its bytes cost more than the check. */
function follows(text: Buffer, span: Span, rule: MemberRule): boolean {
  if (typeof rule === 'object') return writtenAs(text, span, rule.bytes);
  if (rule === 'number') return isJsonNumber(text, span[0], span[1]);
  return writtenKind(text, span) === rule;
}

/** Every member `rules` names is there and written as its rule says. */
export function membersFollow(
  text: Buffer,
  members: ReadonlyMap<string, Span>,
  rules: Readonly<Record<string, MemberRule>>,
): boolean {
  for (const key in rules) {
    const span = members.get(key);
    if (span === undefined || !follows(text, span, rules[key])) return false;
  }
  return true;
}
