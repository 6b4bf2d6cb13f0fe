/** A key named `model`, its colon and the whitespace JSON allows around it. */
const MODEL_KEY = /"model"[ \t\n\r]*:[ \t\n\r]*/g;

/**
 * The upstream's JSON answer as text with its top-level `model` set to the public model, so a
 * native answer is passed on without serialising the parsed object again
 * (docs/decisions/hot-path.md, Textual model edit). An answer without a `model` string
 * (images) is the text as it is. Null when a textual edit cannot be proven right; the caller then
 * serialises the object.
 *
 * The edit is safe because JSON escapes every quote inside a string: `"model"` followed by a colon
 * is always a key. When the text holds exactly one such key and its value is written exactly as
 * the parsed answer's top-level `model` serialises, that key is the top-level one.
 */
export function answerTextWithModel(
  text: string,
  answer: Readonly<Record<string, unknown>>,
  publicModel: string,
): string | null {
  const upstreamModel = answer.model;
  if (typeof upstreamModel !== 'string') return text;
  MODEL_KEY.lastIndex = 0;
  const key = MODEL_KEY.exec(text);
  if (key === null || MODEL_KEY.exec(text) !== null) return null;
  const valueStart = key.index + key[0].length;
  const written = JSON.stringify(upstreamModel);
  if (!text.startsWith(written, valueStart)) return null;
  return `${text.slice(0, valueStart)}${JSON.stringify(publicModel)}${text.slice(valueStart + written.length)}`;
}
