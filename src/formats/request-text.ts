import { isJsonSpace } from './answer-text.ts';

/**
 * The client's JSON text (its bytes, valid UTF-8), kept beside its parsed body so that a native
 * route can send it upstream with the model edited instead of serialising the parsed body again
 * (docs/decisions/hot-path.md, Client text sent with the model edited).
 *
 * The text is true of the body's fields as they were when it was remembered: by the JSON parser
 * (server/json-body.ts), and after the endpoint's schema copied the body when a deep comparison
 * finds the copy holds the same JSON (`carryRequestText`). Stages may still edit the body: they
 * replace a top-level field (the Responses state stage sets `input`, deletes
 * `previous_response_id`), so the fields are kept too (the references, a shallow copy) and the
 * text is used only when the upstream body still holds every one of them bar `model`. Nothing on
 * a native route edits a body below its top level in place.
 */
interface RequestText {
  bytes: Buffer;
  fields: ReadonlyMap<string, unknown>;
}

const texts = new WeakMap<object, RequestText>();

export function rememberRequestText(body: object, bytes: Buffer): void {
  texts.set(body, { bytes, fields: new Map(Object.entries(body)) });
}

/** `copy`, made of `source`'s fields, is sent with `source`'s text (the fields decide, above). */
export function shareRequestText(copy: object, source: object): void {
  const text = texts.get(source);
  if (text !== undefined) texts.set(copy, text);
}

/** Equal as parsed JSON values; strings the schema passed on are the same values, compared at once. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  for (const key of keys) {
    if (!Object.hasOwn(right, key) || !sameJson(left[key], right[key])) return false;
  }
  return true;
}

/**
 * `parsed`'s text goes with `validated` (the schema's copy of it) when the copy holds exactly
 * the same JSON: no field stripped, defaulted or transformed. The walk visits the nodes, not the
 * text, so a megabyte string costs one comparison.
 */
export function carryRequestText(validated: object, parsed: unknown): void {
  if (typeof parsed !== 'object' || parsed === null) return;
  const text = texts.get(parsed);
  if (text !== undefined && sameJson(validated, parsed)) rememberRequestText(validated, text.bytes);
}

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const MODEL_KEY = Buffer.from('"model"');

function skipSpace(text: Buffer, at: number): number {
  let i = at;
  while (isJsonSpace(text[i])) i++;
  return i;
}

/**
 * Index just past the JSON string whose opening quote is at `at`, or -1 (unterminated). Bytes, not
 * characters: a quote or a backslash is never part of a longer UTF-8 sequence.
 */
function stringEnd(text: Buffer, at: number): number {
  for (let quote = text.indexOf(QUOTE, at + 1); quote !== -1; quote = text.indexOf(QUOTE, quote + 1)) {
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

/**
 * Where the string value of the top-level `model` key is in `text`: [start, end) of the value
 * with its quotes. Null unless it is provably the one: the text is an object, exactly one of its
 * top-level keys is written `"model"`, no top-level key is written with an escape (an escaped
 * `"mod\u0065l"` would be the same key, unseen), and its value is a string. Strings are jumped
 * with indexOf, so a megabyte of message content costs no byte loop.
 */
function topLevelModelValue(text: Buffer): [number, number] | null {
  let i = skipSpace(text, 0);
  if (text[i] !== 123) return null;
  let depth = 0;
  let found: [number, number] | null = null;
  while (i < text.length) {
    const code = text[i];
    if (code !== QUOTE) {
      if (code === 123 || code === 91) depth++;
      else if (code === 125 || code === 93) depth--;
      i++;
      continue;
    }
    const end = stringEnd(text, i);
    if (end === -1) return null;
    const afterKey = skipSpace(text, end);
    if (depth !== 1 || text[afterKey] !== COLON) {
      i = end;
      continue;
    }
    if (hasBackslash(text, i, end)) return null;
    if (end - i !== MODEL_KEY.length || MODEL_KEY.compare(text, i, end) !== 0) {
      i = end;
      continue;
    }
    const valueStart = skipSpace(text, afterKey + 1);
    if (found !== null || text[valueStart] !== QUOTE) return null;
    const valueEnd = stringEnd(text, valueStart);
    if (valueEnd === -1) return null;
    found = [valueStart, valueEnd];
    i = valueEnd;
  }
  return depth === 0 ? found : null;
}

/** `text` with its top-level `model` set to `model`, or null when the edit cannot be proven right. */
export function requestTextWithModel(text: Buffer, model: string): Buffer | null {
  const value = topLevelModelValue(text);
  if (value === null) return null;
  return Buffer.concat([
    text.subarray(0, value[0]),
    Buffer.from(JSON.stringify(model)),
    text.subarray(value[1]),
  ]);
}

/** `upstream` holds the fields the text was remembered with (the same references), bar a string `model`. */
function onlyModelDiffers(
  upstream: Readonly<Record<string, unknown>>,
  fields: ReadonlyMap<string, unknown>,
): boolean {
  if (typeof upstream.model !== 'string' || !fields.has('model')) return false;
  const keys = Object.keys(upstream);
  if (keys.length !== fields.size) return false;
  for (const key of keys) {
    if (key !== 'model' && (!fields.has(key) || fields.get(key) !== upstream[key])) return false;
  }
  return true;
}

/**
 * The upstream body as JSON: `base`'s remembered text with the model edited when `upstream`
 * holds the text's fields and another model and nothing else (an adapter or a stage that adds,
 * drops or replaces a field fails the check), else `JSON.stringify(upstream)`. The bytes parse to
 * the same value as the serialised body; they keep the client's spacing and number spelling.
 * Bytes, not a string: a string built of slices would be encoded character by character when sent.
 */
export function upstreamJson(upstream: Readonly<Record<string, unknown>>, base: object): string | Buffer {
  const text = texts.get(base);
  if (text !== undefined && onlyModelDiffers(upstream, text.fields)) {
    const edited = requestTextWithModel(text.bytes, upstream.model as string);
    if (edited !== null) return edited;
  }
  return JSON.stringify(upstream);
}
