import { isJsonSpace } from './answer-text.ts';
import { isJsonNumber } from './json-number.ts';

/**
 * Where a value is written in a JSON text: [start, end) in bytes, brackets or quotes included,
 * counted from the text's first byte across the chunks it was received in.
 */
export type Span = readonly [number, number];

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const COMMA = 44;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
/** What `Cursor.skipSpace` reads past the text's last byte. */
const END = -1;

/**
 * Bytes of a string looked at one by one before the search is handed to indexOf: a call into
 * Buffer's native code costs more than a loop over a short string, and most strings of an answer
 * or a request (keys, ids, roles) are short (docs/decisions/hot-path.md, Member keys compared as
 * bytes).
 */
const SCANNED_BYTES = 128;

/** `closingQuote` found no closing quote, and the chunk's last byte escapes nothing. */
const OPEN = -1;
/** `closingQuote` found no closing quote, and the chunk's last byte escapes the next chunk's first. */
const OPEN_ESCAPING = -2;

/**
 * Index just past the quote that closes a string continued at `from` (a byte that nothing before
 * it in `text` escapes), or OPEN / OPEN_ESCAPING when `text` ends inside it. Bytes, not
 * characters: a quote or a backslash is never part of a longer UTF-8 sequence. Past its first
 * SCANNED_BYTES it jumps with indexOf, so a megabyte of text costs no byte loop.
 */
function closingQuote(text: Buffer, from: number): number {
  const scannedEnd = Math.min(text.length, from + SCANNED_BYTES);
  let i = from;
  for (; i < scannedEnd; i++) {
    const code = text[i];
    if (code === QUOTE) return i + 1;
    if (code === BACKSLASH) i++;
  }
  if (i > text.length) return OPEN_ESCAPING;
  for (let quote = text.indexOf(QUOTE, i); quote !== -1; quote = text.indexOf(QUOTE, quote + 1)) {
    if (backslashesBefore(text, from, quote) % 2 === 0) return quote + 1;
  }
  return backslashesBefore(text, from, text.length) % 2 === 0 ? OPEN : OPEN_ESCAPING;
}

/** How many backslashes are written just before `at`, not counting back past `from`. */
function backslashesBefore(text: Buffer, from: number, at: number): number {
  let i = at;
  while (i > from && text[i - 1] === BACKSLASH) i--;
  return at - i;
}

function hasBackslash(text: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text[i] === BACKSLASH) return true;
  return false;
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

/**
 * True when `a` from `aFrom` and `b` from `bFrom` hold the same `length` bytes: a loop, as the
 * keys compared are a few bytes long (docs/decisions/hot-path.md, Member keys compared as bytes).
 */
function sameBytes(a: Buffer, aFrom: number, b: Buffer, bFrom: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (a[aFrom + i] !== b[bFrom + i]) return false;
  return true;
}

const EMPTY = Buffer.alloc(0);

/**
 * A place in a text received as chunks, read without joining them: each loop runs over one
 * chunk's bytes and moves to the next at its end, so an answer of a megabyte in many chunks is
 * scanned in place (docs/decisions/hot-path.md, Answer chunks never joined), and a text in one
 * chunk is read as a plain buffer.
 */
class Cursor {
  readonly #chunks: readonly Buffer[];
  /** The chunk being read (`index` of the chunks), `at` in it, which starts `base` bytes into the text. */
  index = 0;
  chunk: Buffer;
  at = 0;
  base = 0;

  constructor(chunks: readonly Buffer[]) {
    this.#chunks = chunks;
    this.chunk = chunks.length === 0 ? EMPTY : chunks[0];
  }

  /** Where the cursor is, counted from the text's first byte. */
  offset(): number {
    return this.base + this.at;
  }

  /** The first byte at or after the cursor that is not JSON whitespace (END past the text). */
  skipSpace(): number {
    for (;;) {
      const chunk = this.chunk;
      let i = this.at;
      while (i < chunk.length && isJsonSpace(chunk[i])) i++;
      this.at = i;
      if (i < chunk.length) return chunk[i];
      if (!this.#next()) return END;
    }
  }

  /** Moves past the string whose opening quote is the byte at the cursor; false when the text ends inside it. */
  skipString(): boolean {
    let from = this.at + 1;
    for (;;) {
      const end = closingQuote(this.chunk, from);
      if (end >= 0) {
        this.at = end;
        return true;
      }
      // The chunk ended inside the string: it goes on at the next one's first byte, or its second
      // when the last backslash here escapes that one.
      this.at = this.chunk.length;
      if (!this.#next()) return false;
      from = end === OPEN_ESCAPING ? 1 : 0;
      while (from > this.chunk.length) {
        from -= this.chunk.length;
        if (!this.#next()) return false;
      }
    }
  }

  /** Moves past the object or array opened at the cursor, its strings jumped; false when unbalanced. */
  skipContainer(): boolean {
    let depth = 0;
    for (;;) {
      const chunk = this.chunk;
      let i = this.at;
      while (i < chunk.length) {
        const code = chunk[i];
        if (code === QUOTE) {
          const end = closingQuote(chunk, i + 1);
          if (end >= 0) {
            i = end;
            continue;
          }
          this.at = i;
          if (!this.skipString()) return false;
          break;
        }
        if (code === OPEN_OBJECT || code === OPEN_ARRAY) depth++;
        else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
          depth--;
          if (depth === 0) {
            this.at = i + 1;
            return true;
          }
        }
        i++;
      }
      if (i === chunk.length) {
        this.at = i;
        if (!this.#next()) return false;
      }
    }
  }

  /** Moves past a bare word or number; false when there is none at the cursor. */
  skipWord(): boolean {
    const start = this.offset();
    for (;;) {
      const chunk = this.chunk;
      let i = this.at;
      while (i < chunk.length && !endsAWord(chunk[i])) i++;
      this.at = i;
      if (i < chunk.length || !this.#next()) return this.offset() !== start;
    }
  }

  /** Moves past the value at the cursor (a string, a container, or a bare word or number); false when there is none. */
  skipValue(code: number): boolean {
    if (code === QUOTE) return this.skipString();
    if (code === OPEN_OBJECT || code === OPEN_ARRAY) return this.skipContainer();
    return code !== END && this.skipWord();
  }

  #next(): boolean {
    if (this.index + 1 >= this.#chunks.length) return false;
    this.base += this.chunk.length;
    this.index += 1;
    this.chunk = this.#chunks[this.index];
    this.at = 0;
    return true;
  }
}

/** Bytes [start, end) of the text in `chunks`: a view when one chunk holds them, else a copy. */
export function bytesAt(chunks: readonly Buffer[], start: number, end: number): Buffer {
  let base = 0;
  let index = 0;
  while (index < chunks.length && base + chunks[index].length <= start) base += chunks[index++].length;
  const first = chunks[index] ?? EMPTY;
  if (end - base <= first.length) return first.subarray(start - base, end - base);
  const joined = Buffer.allocUnsafe(end - start);
  let written = 0;
  for (let i = index; written < joined.length; i++) {
    const from = i === index ? start - base : 0;
    written += chunks[i].copy(
      joined,
      written,
      from,
      Math.min(chunks[i].length, from + joined.length - written),
    );
  }
  return joined;
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
 * Keys of an object compared byte by byte before it holds more than this many; past it, by a set
 * of their bytes. An object has few top-level keys, but a client may send a hundred thousand, and
 * comparing each with every one before it held the event loop for 40 s for a 1.3 MB body.
 */
const KEYS_COMPARED = 16;

/**
 * The keys met so far in an object: each as the buffer that holds it and where, compared byte by
 * byte, and past KEYS_COMPARED as a string of its bytes in a set (`latin1`: one character a byte,
 * so two keys are the same string exactly when they are the same bytes).
 */
class KeysMet {
  readonly #texts: Buffer[] = [];
  readonly #spans: number[] = [];
  #many: Set<string> | null = null;

  /** Adds the key at [start, end) of `text`; false when it was met before. */
  add(text: Buffer, start: number, end: number): boolean {
    if (this.#many !== null) return this.#addToSet(text.toString('latin1', start, end));
    const length = end - start;
    for (let k = 0; k < this.#texts.length; k++) {
      const from = this.#spans[2 * k];
      if (this.#spans[2 * k + 1] - from === length && sameBytes(this.#texts[k], from, text, start, length))
        return false;
    }
    this.#texts.push(text);
    this.#spans.push(start, end);
    if (this.#texts.length === KEYS_COMPARED) {
      this.#many = new Set(
        this.#texts.map((held, k) => held.toString('latin1', this.#spans[2 * k], this.#spans[2 * k + 1])),
      );
    }
    return true;
  }

  #addToSet(key: string): boolean {
    const many = this.#many as Set<string>;
    if (many.has(key)) return false;
    many.add(key);
    return true;
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
  return chunkedMembers([text], keys);
}

/** `topLevelMembers` of the text `chunks` make one after the other, read in place. */
export function chunkedMembers(chunks: readonly Buffer[], keys: MemberKeys): Map<string, Span> | null {
  const cursor = new Cursor(chunks);
  if (cursor.skipSpace() !== OPEN_OBJECT) return null;
  cursor.at++;
  const members = new Map<string, Span>();
  const met = new KeysMet();
  let code = cursor.skipSpace();
  if (code === CLOSE_OBJECT) return endsAfter(cursor) ? members : null;
  for (;;) {
    if (code !== QUOTE) return null;
    const key = memberKey(cursor, chunks, keys, met);
    if (key === null || cursor.skipSpace() !== COLON) return null;
    cursor.at++;
    code = cursor.skipSpace();
    const start = cursor.offset();
    if (!cursor.skipValue(code)) return null;
    if (key !== undefined) members.set(key, [start, cursor.offset()]);
    code = cursor.skipSpace();
    if (code === CLOSE_OBJECT) return endsAfter(cursor) ? members : null;
    if (code !== COMMA) return null;
    cursor.at++;
    code = cursor.skipSpace();
  }
}

/**
 * Moves past the key at the cursor: the one of `keys` it is, undefined when it is none of them,
 * null when it cannot be read as written (unterminated, escaped, or met before). A key split
 * between chunks is copied out whole; every other is compared where it is.
 */
function memberKey(
  cursor: Cursor,
  chunks: readonly Buffer[],
  keys: MemberKeys,
  met: KeysMet,
): string | undefined | null {
  const { index, at } = cursor;
  const start = cursor.offset();
  if (!cursor.skipString()) return null;
  if (cursor.index === index) return keyWritten(cursor.chunk, at, cursor.at, keys, met);
  const copy = bytesAt(chunks, start, cursor.offset());
  return keyWritten(copy, 0, copy.length, keys, met);
}

/** The key written at [from, to) of `text`, quotes included, as `memberKey` reads it. */
function keyWritten(
  text: Buffer,
  from: number,
  to: number,
  keys: MemberKeys,
  met: KeysMet,
): string | undefined | null {
  if (hasBackslash(text, from, to) || !met.add(text, from, to)) return null;
  return keys.at(text, from + 1, to - 1);
}

/** Whether nothing but whitespace follows the closing brace at the cursor. */
function endsAfter(cursor: Cursor): boolean {
  cursor.at++;
  return cursor.skipSpace() === END;
}

/**
 * The text `chunks` make, with the value at `span` replaced by `written` (the new value's JSON
 * bytes), as parts to be written one after the other: views of the chunks around the new value's bytes, nothing
 * copied (docs/decisions/hot-path.md, Answer bytes written in parts; Answer chunks never joined).
 */
export function valueReplacedParts(chunks: readonly Buffer[], span: Span, written: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let base = 0;
  for (const chunk of chunks) {
    const end = base + chunk.length;
    if (base < span[0]) parts.push(end <= span[0] ? chunk : chunk.subarray(0, span[0] - base));
    if (base <= span[0] && span[0] < end) parts.push(written);
    if (end > span[1]) parts.push(base >= span[1] ? chunk : chunk.subarray(span[1] - base));
    base = end;
  }
  if (span[0] >= base) parts.push(written);
  return parts;
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

/** Whether bytes [start, end) of `text` are exactly `bytes`. */
function writtenAsAt(text: Buffer, start: number, end: number, bytes: Buffer): boolean {
  return end - start === bytes.length && sameBytes(bytes, 0, text, start, bytes.length);
}

type ValueKind = 'string' | 'object' | 'array' | 'other';

/** The kind of value whose first byte is `code`. */
function kindLedBy(code: number): ValueKind {
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

/**
 * Whether the value at `span` of the text `chunks` make is written as `rule` says. Compared in
 * place, in the chunk that holds the value (copied out only when it is split between two): an
 * answer passed on is checked on every call, and a string made of its bytes cost more than the
 * check.
 */
export function spanFollows(chunks: readonly Buffer[], span: Span, rule: MemberRule): boolean {
  const [start, end] = span;
  let base = 0;
  let index = 0;
  while (index < chunks.length - 1 && base + chunks[index].length <= start) base += chunks[index++].length;
  const chunk = chunks[index];
  if (typeof rule === 'string' && rule !== 'number') return kindLedBy(chunk[start - base]) === rule;
  if (end - base > chunk.length) return followsAt(bytesAt(chunks, start, end), 0, end - start, rule);
  return followsAt(chunk, start - base, end - base, rule);
}

function followsAt(text: Buffer, start: number, end: number, rule: MemberRule): boolean {
  if (typeof rule === 'object') return writtenAsAt(text, start, end, rule.bytes);
  return rule === 'number' ? isJsonNumber(text, start, end) : kindLedBy(text[start]) === rule;
}

/** Every member `rules` names is there and written as its rule says, in the text `chunks` make. */
export function membersFollow(
  chunks: readonly Buffer[],
  members: ReadonlyMap<string, Span>,
  rules: Readonly<Record<string, MemberRule>>,
): boolean {
  for (const key in rules) {
    const span = members.get(key);
    if (span === undefined || !spanFollows(chunks, span, rules[key])) return false;
  }
  return true;
}
