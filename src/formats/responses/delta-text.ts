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
 * The JSON grammar of a delta event, as parts of one regular expression (one expression over the
 * text costs less than a search per key or a match per member: docs/decisions/hot-path.md). A
 * string (RFC 8259, section 7): no raw control character, only the escapes it names; written as
 * runs between escapes so that a long string costs no step per character. Integers only, and no
 * nested value but `[]`: a logprobs list with entries, or any object, sends the event to the parser.
 */
const STRING_CHARS = String.raw`[^"\\\u0000-\u001f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\u0000-\u001f]*)*`;
const INTEGER = `-?(?:0|[1-9][0-9]{0,14})`;
const VALUE = String.raw`(?:"${STRING_CHARS}"|${INTEGER}|null|true|false|\[\])`;
/**
 * A member other than the two read: any key written without escapes, but neither one of those nor
 * one the decoder's schema checks (`responsesStreamEventSchema`: the response, an error's code and
 * message), whose events are parsed so that its verdict stands; `sequence_number` an integer.
 */
const OTHER = `(?:"(?!(?:type|delta|response|code|message|sequence_number)")[a-z_]+":${VALUE}|"sequence_number":${INTEGER})`;
const TYPE = `"type":"([a-z_.]+)"`;
const DELTA = `"delta":"(${STRING_CHARS})"`;

/**
 * A compact flat object with one `type` and one `delta`, in either order, among other members:
 * the type is group 1 or 4, the delta's characters group 2 or 3.
 */
const DELTA_EVENT = new RegExp(
  String.raw`^\{(?:${OTHER},)*(?:${TYPE}(?:,${OTHER})*,${DELTA}|${DELTA}(?:,${OTHER})*,${TYPE})(?:,${OTHER})*\}$`,
);

/**
 * Longest text read: the expression keeps a backtracking step per escape, which a text of
 * megabytes would overflow. A delta is a few tokens; a long one (an audio chunk) is parsed.
 */
const MAX_TEXT_LENGTH = 64 * 1024;

/**
 * The `delta` a delta event's text carries, what billing counts (`responsesFormat.streamedText`);
 * null when `event` (its SSE name) is not one of the delta events or `text` is not, exactly, one
 * compact flat JSON object of that type with one string `delta`. A text read is JSON that a
 * parser reads the same delta from, and that the decoder's schema accepts.
 */
export function readDeltaText(text: string, event: string): string | null {
  if (!RESPONSES_DELTA_EVENTS.has(event) || text.length > MAX_TEXT_LENGTH) return null;
  const match = DELTA_EVENT.exec(text);
  if (match === null || (match[1] ?? match[4]) !== event) return null;
  const chars = match[2] ?? match[3];
  return chars.includes('\\') ? (JSON.parse(`"${chars}"`) as string) : chars;
}
