import { closingQuote, stringValue } from '../json-string-text.ts';

/**
 * The delta events of a Responses stream (API reference, "Streaming events"), read from their
 * text: the common event of a native stream, passed on without being parsed
 * (docs/decisions/hot-path.md, Native Responses deltas not parsed).
 */

/**
 * The `*.delta` events whose members are ids, indexes, a sequence number and the `delta` string
 * (with `logprobs: []` and `obfuscation` as OpenAI writes them): they name no model and carry no
 * usage, so nothing in them changes on the way to the client.
 */
export const RESPONSES_DELTA_EVENTS: ReadonlySet<string> = new Set([
  'response.output_text.delta',
  'response.refusal.delta',
  'response.reasoning_text.delta',
  'response.reasoning_summary_text.delta',
  'response.function_call_arguments.delta',
  'response.custom_tool_call_input.delta',
  'response.mcp_call_arguments.delta',
  'response.code_interpreter_call_code.delta',
  'response.audio.delta',
  'response.audio.transcript.delta',
]);

/**
 * One member's key, written without escapes, and the start of its value: a string's opening quote
 * (its end is found with indexOf, which a regular expression walking the string costs ten times
 * over on a long one), an integer, `null`, `true`, `false` or `[]`. Nothing nested: a logprobs list
 * with entries, or any object, sends the event to the parser. Sticky: read member after member.
 */
const MEMBER = /"([a-z_]+)":(?:(")|(-?(?:0|[1-9][0-9]{0,14}))|null|true|false|\[\])/y;

/** A character JSON allows only escaped in a string (RFC 8259, section 7), and in a compact text nowhere else. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: those are the characters it finds.
const CONTROL = /[\u0000-\u001f]/;

const COMMA = 44;
const CLOSE_OBJECT = 125;

/**
 * Members the decoder's schema checks (`responsesStreamEventSchema`: an error's code and message,
 * the response) besides the type and the sequence number: an event that has one is parsed, so the
 * schema's verdict on it stands.
 */
const CHECKED_KEYS: ReadonlySet<string> = new Set(['response', 'code', 'message']);

/**
 * The `delta` a delta event's text carries, what billing counts (`responsesFormat.streamedText`);
 * null when `event` (its SSE name) is not one of the delta events or `text` is not, exactly, one
 * compact flat JSON object of that type with a string `delta` and, if any, an integer
 * `sequence_number`. A text read is JSON that a parser reads the same delta from: a key written
 * twice counts once, the last time, as `JSON.parse` keeps the last.
 */
export function readDeltaText(text: string, event: string): string | null {
  if (!RESPONSES_DELTA_EVENTS.has(event) || !text.startsWith('{') || CONTROL.test(text)) return null;
  // Without a backslash, every string is valid as written; with one, each is checked.
  const escaped = text.includes('\\');
  let type: string | null = null;
  let delta: string | null = null;
  for (let at = 1; ; at++) {
    MEMBER.lastIndex = at;
    const member = MEMBER.exec(text);
    if (member === null) return null;
    const [, key, quote, integer] = member;
    let value: string | null = null;
    if (quote === undefined) at = MEMBER.lastIndex;
    else {
      const end = closingQuote(text, MEMBER.lastIndex);
      if (end === -1) return null;
      if (escaped || key === 'type' || key === 'delta') {
        value = stringValue(text, MEMBER.lastIndex, end);
        if (value === null) return null;
      }
      at = end + 1;
    }
    if (key === 'type') type = value;
    else if (key === 'delta') delta = value;
    else if (CHECKED_KEYS.has(key) || (key === 'sequence_number' && integer === undefined)) return null;
    const next = text.charCodeAt(at);
    if (next === CLOSE_OBJECT) return at === text.length - 1 && type === event ? delta : null;
    if (next !== COMMA) return null;
  }
}
