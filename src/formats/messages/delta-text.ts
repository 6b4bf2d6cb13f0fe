import { closingQuote, stringValue } from '../json-string-text.ts';

/**
 * The content_block_delta events of a Messages stream (API reference, "Streaming messages"), read
 * from their text: the common event of a native stream, passed on without being parsed
 * (docs/decisions/hot-path.md, Native Messages deltas not parsed).
 */

/**
 * The compact text of a delta event up to its one string value, and which value it is. The type
 * and the field must agree; any other text (another key, spaces, a key order of its own) is parsed.
 */
const DELTA_START =
  /^\{"type":"content_block_delta","index":\d{1,9},"delta":\{"type":"(text_delta|thinking_delta|input_json_delta|signature_delta)","(text|thinking|partial_json|signature)":"/;

const FIELD_OF_TYPE: Readonly<Record<string, string>> = {
  text_delta: 'text',
  thinking_delta: 'thinking',
  input_json_delta: 'partial_json',
  signature_delta: 'signature',
};

/** The delta's text as billing counts it (`messagesFormat.streamedText`): the signature is none. */
const COUNTED_FIELDS: ReadonlySet<string> = new Set(['text', 'thinking', 'partial_json']);

const END = '"}}';

/**
 * The text the delta event carries, '' for a signature; null when `text` is not a compact delta
 * event of one of the four kinds with nothing after its value, or its value is not a JSON string.
 * Not proven JSON past that: a value holding a raw control character is passed on as the upstream
 * sent it, as a proxy would.
 */
export function readDeltaText(text: string): string | null {
  const start = DELTA_START.exec(text);
  if (start === null || FIELD_OF_TYPE[start[1]] !== start[2]) return null;
  const valueStart = start[0].length;
  const valueEnd = closingQuote(text, valueStart);
  if (valueEnd !== text.length - END.length || !text.endsWith(END)) return null;
  const value = stringValue(text, valueStart, valueEnd);
  return value === null || COUNTED_FIELDS.has(start[2]) ? value : '';
}
