import {
  chunkedMembers,
  MemberKeys,
  type MemberRule,
  spanFollows,
  valueReplaced,
  valueReplacedParts,
} from './json-members.ts';

/**
 * The client's JSON text (its bytes, valid UTF-8), kept beside its parsed body so that a native
 * route can send it upstream with the model edited instead of serialising the parsed body again
 * (docs/decisions/hot-path.md, Client text sent with the model edited).
 *
 * The JSON parser (server/json-body.ts) keeps the bytes beside the parsed body; they go with the
 * endpoint's schema copy of it (`carryRequestText`) and are used only if a deep comparison finds
 * the copy held the same JSON, made the first time the text is wanted: a translated route, or a
 * native stream whose adapter adds `stream_options`, never pays for it. The text is true of the
 * copy's fields as they were when it was carried. Stages may still edit the body: they replace a
 * top-level field (the Responses state stage sets `input`, deletes `previous_response_id`), so
 * the fields are kept too (the references, a shallow copy) and the text is used only when the
 * upstream body still holds every one of them bar `model`. Nothing on a native route edits a body
 * below its top level in place.
 */
interface RequestText {
  /** The client's bytes, as the chunks they were received in. */
  bytes: readonly Buffer[];
  /** A shallow copy of the body's fields when the text was remembered with it. */
  fields: Readonly<Record<string, unknown>>;
  /** How many fields it has. */
  size: number;
  /** The client's body as parsed from `bytes`. */
  parsed: object;
  /** Whether `fields` hold the same JSON as `parsed`; null until the text is first wanted. */
  matchesClient: boolean | null;
}

/** The client's bytes of a parsed body, until its schema copy carries them (or not). */
const CLIENT_BYTES = Symbol('clientBytes');
/** The text a body is sent with. */
const REQUEST_TEXT = Symbol('requestText');

interface Carrier {
  [CLIENT_BYTES]?: readonly Buffer[];
  [REQUEST_TEXT]?: RequestText;
}

/**
 * Held on the body itself, as a property no enumeration, spread or serialiser sees, not in a
 * module's WeakMap: V8's young-generation collections keep the values of a long-lived WeakMap
 * alive whatever their keys, so every call's bytes and fields outlived two of them and were
 * promoted (docs/decisions/hot-path.md, Request text held on the body).
 */
function hold<K extends keyof Carrier>(body: object, key: K, value: Carrier[K]): void {
  if (Object.isExtensible(body))
    Object.defineProperty(body, key, { value, writable: true, configurable: true });
}

const MODEL_KEY = new MemberKeys(['model']);
const A_STRING: MemberRule = 'string';

/** `parsed` was parsed from `bytes` (valid UTF-8, as the chunks it was received in). */
export function rememberClientBytes(parsed: object, bytes: readonly Buffer[]): void {
  hold(parsed, CLIENT_BYTES, bytes);
}

function requestText(body: object, bytes: readonly Buffer[], parsed: object): RequestText {
  const fields = { ...body } as Record<string, unknown>;
  let size = 0;
  for (const _ in fields) size++;
  return { bytes, fields, size, parsed, matchesClient: null };
}

/** `copy`, made of `source`'s fields, is sent with `source`'s text (the fields decide, above). */
export function shareRequestText(copy: object, source: object): void {
  const text = (source as Carrier)[REQUEST_TEXT];
  if (text !== undefined) hold(copy, REQUEST_TEXT, text);
}

/**
 * Equal as parsed JSON values; strings the schema passed on are the same values, compared at once.
 * Arrays by index and objects by `for…in` with a count: `Object.keys` of both sides made two
 * arrays per object (and index strings per array) that the walk does not need
 * (docs/decisions/hot-path.md, Client text sent with the model edited). Parsed JSON and the
 * schema's copies are plain objects, with nothing enumerable inherited.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!sameJson(a[index], b[index])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let unmatched = 0;
  for (const key in left) {
    if (!Object.hasOwn(right, key) || !sameJson(left[key], right[key])) return false;
    unmatched++;
  }
  for (const _ in right) unmatched--;
  return unmatched === 0;
}

/**
 * `parsed`'s text goes with `validated` (the schema's copy of it), to be used only if the copy
 * held exactly the same JSON: no field stripped, defaulted or transformed (`holdsClientJson`).
 */
export function carryRequestText(validated: object, parsed: unknown): void {
  if (typeof parsed !== 'object' || parsed === null) return;
  const bytes = (parsed as Carrier)[CLIENT_BYTES];
  if (bytes !== undefined) hold(validated, REQUEST_TEXT, requestText(validated, bytes, parsed));
}

/**
 * Whether the copy's fields, as carried, hold the client's JSON; compared once. The walk visits
 * the nodes, not the text, so a megabyte string costs one comparison; it may wait until now
 * because nothing edits a body below its top level in place, and the fields are the copy's own
 * references as they were.
 */
function holdsClientJson(text: RequestText): boolean {
  text.matchesClient ??= sameJson(text.fields, text.parsed);
  return text.matchesClient;
}

/** Bytes sent one part after the other, never joined (`requestTextWithModel`). */
export interface BodyParts {
  kind: 'parts';
  parts: readonly Buffer[];
}

/**
 * From this size, the edited text is sent as its parts (views of the client's bytes and the new
 * model's), not joined: a join is one more buffer of the body's size outside the V8 heap, and
 * that memory brings the next full collection (docs/decisions/hot-path.md, Client text sent in
 * parts). Below it a join is cheaper than the client's writes of separate parts.
 */
const PARTS_FROM_BYTES = 64 * 1024;

/**
 * The text `text`'s chunks make, with its top-level `model` set to `model`, or null when the edit
 * cannot be proven right: the text is an object whose one top-level `model` key, written plainly,
 * has a string value (chunkedMembers says when a key found is the one a parser reads). When the
 * text already names `model`, as JSON.stringify writes it, it is the chunks themselves: a
 * megabyte body sent to a deployment whose upstream model is the public one is not copied. A
 * large text is its parts, views of the chunks (docs/decisions/hot-path.md, Request chunks never
 * joined).
 */
export function requestTextWithModel(text: readonly Buffer[], model: string): Buffer | BodyParts | null {
  const value = chunkedMembers(text, MODEL_KEY)?.get('model');
  if (value === undefined || !spanFollows(text, value, A_STRING)) return null;
  const written = writtenModel(model);
  if (spanFollows(text, value, written)) return text.length === 1 ? text[0] : joinedIfSmall(text);
  // One copy of a small text costs less than the views of its parts and their join.
  if (text.length === 1 && text[0].length < PARTS_FROM_BYTES)
    return valueReplaced(text[0], value, written.bytes);
  return joinedIfSmall(valueReplacedParts(text, value, written.bytes));
}

/** `parts` joined when they come to less than PARTS_FROM_BYTES, else the parts themselves. */
function joinedIfSmall(parts: readonly Buffer[]): Buffer | BodyParts {
  let length = 0;
  for (const part of parts) length += part.length;
  return length < PARTS_FROM_BYTES ? Buffer.concat(parts, length) : { kind: 'parts', parts };
}

/**
 * Upstream model names as JSON bytes, made once: a gateway sends to a few of them. Bounded, as a
 * deployment may pass a client's model name on.
 */
const writtenModels = new Map<string, { bytes: Buffer }>();
const WRITTEN_MODELS_KEPT = 256;

function writtenModel(model: string): { bytes: Buffer } {
  let written = writtenModels.get(model);
  if (written === undefined) {
    if (writtenModels.size === WRITTEN_MODELS_KEPT) writtenModels.clear();
    written = { bytes: Buffer.from(JSON.stringify(model)) };
    writtenModels.set(model, written);
  }
  return written;
}

/** `upstream` holds the fields the text was remembered with (the same references), bar a string `model`. */
function onlyModelDiffers(upstream: Readonly<Record<string, unknown>>, text: RequestText): boolean {
  const { fields } = text;
  if (typeof upstream.model !== 'string' || !Object.hasOwn(fields, 'model')) return false;
  let size = 0;
  for (const key in upstream) {
    if (!Object.hasOwn(upstream, key)) continue;
    size++;
    if (key !== 'model' && (!Object.hasOwn(fields, key) || fields[key] !== upstream[key])) return false;
  }
  return size === text.size;
}

/**
 * The upstream body as JSON: `base`'s remembered text with the model edited when `upstream`
 * holds the text's fields and another model and nothing else (an adapter or a stage that adds,
 * drops or replaces a field fails the check), else `JSON.stringify(upstream)`. The bytes parse to
 * the same value as the serialised body; they keep the client's spacing and number spelling.
 * Bytes, not a string: a string built of slices would be encoded character by character when sent.
 */
export function upstreamJson(
  upstream: Readonly<Record<string, unknown>>,
  base: object,
): string | Buffer | BodyParts {
  const text = (base as Carrier)[REQUEST_TEXT];
  if (text !== undefined && onlyModelDiffers(upstream, text) && holdsClientJson(text)) {
    const edited = requestTextWithModel(text.bytes, upstream.model as string);
    if (edited !== null) return edited;
  }
  return JSON.stringify(upstream);
}
