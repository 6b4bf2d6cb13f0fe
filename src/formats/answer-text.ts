import { isUtf8 } from 'node:buffer';

const MODEL_KEY = '"model"';

/** JSON's whitespace, by character code (also a byte: all four are ASCII). */
export function isJsonSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/**
 * Where the value of the next `"model"` key at or after `from` starts (past its colon and the
 * whitespace JSON allows around it), or -1. Found with indexOf, not a regular expression: the
 * search runs over the whole of every native answer and stream event (docs/decisions/hot-path.md,
 * Textual model edit found with indexOf).
 */
function modelValueStart(text: string, from: number): number {
  for (let at = text.indexOf(MODEL_KEY, from); at !== -1; at = text.indexOf(MODEL_KEY, at + 1)) {
    let i = at + MODEL_KEY.length;
    while (isJsonSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== 58) continue; // a value "model", not a key
    i++;
    while (isJsonSpace(text.charCodeAt(i))) i++;
    return i;
  }
  return -1;
}

/**
 * Where the value of the answer's top-level `model` is written in `text`, as [start, end) in
 * UTF-16 code units; `'none'` for an answer without a `model` string (images); null when it cannot
 * be proven.
 *
 * Safe because JSON escapes every quote inside a string: `"model"` followed by a colon is always
 * a key. When the text holds exactly one such key and its value is written exactly as the parsed
 * answer's top-level `model` serialises, that key is the top-level one.
 */
function modelValueSpan(
  text: string,
  answer: Readonly<Record<string, unknown>>,
): [number, number] | 'none' | null {
  const upstreamModel = answer.model;
  if (typeof upstreamModel !== 'string') return 'none';
  const valueStart = modelValueStart(text, 0);
  if (valueStart === -1 || modelValueStart(text, valueStart) !== -1) return null;
  const written = JSON.stringify(upstreamModel);
  if (!text.startsWith(written, valueStart)) return null;
  return [valueStart, valueStart + written.length];
}

/**
 * The upstream's JSON answer as text with its top-level `model` set to the public model, so a
 * native answer is passed on without serialising the parsed object again
 * (docs/decisions/hot-path.md, Textual model edit). An answer without a `model` string
 * (images) is the text as it is. Null when a textual edit cannot be proven right; the caller then
 * serialises the object.
 */
export function answerTextWithModel(
  text: string,
  answer: Readonly<Record<string, unknown>>,
  publicModel: string,
): string | null {
  const span = modelValueSpan(text, answer);
  if (span === 'none' || span === null) return span === 'none' ? text : null;
  return `${text.slice(0, span[0])}${JSON.stringify(publicModel)}${text.slice(span[1])}`;
}

/**
 * The same edit on the answer's bytes, `text` being their decoding: the bytes with the model's
 * value replaced, for the client. A string joined of slices is encoded character by character
 * when written; the bytes are copied once (docs/decisions/hot-path.md, Answer bytes passed on).
 * Null as above, and for bytes that are not valid UTF-8 (their decoding then moved offsets).
 */
export function answerBytesWithModel(
  bytes: Buffer,
  text: string,
  answer: Readonly<Record<string, unknown>>,
  publicModel: string,
): Buffer | null {
  const span = modelValueSpan(text, answer);
  if (span === null || !isUtf8(bytes)) return null;
  if (span === 'none') return bytes;
  // Counting the prefix's bytes reads a flat slice of the text: cheap wherever the model is.
  const start = Buffer.byteLength(text.slice(0, span[0]));
  const end = start + Buffer.byteLength(text.slice(span[0], span[1]));
  return Buffer.concat([
    bytes.subarray(0, start),
    Buffer.from(JSON.stringify(publicModel)),
    bytes.subarray(end),
  ]);
}
