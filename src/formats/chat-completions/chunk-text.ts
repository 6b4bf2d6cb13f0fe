import { closingQuote, stringValue } from '../json-string-text.ts';

/** A chat chunk read from its text alone, to pass on without parsing it. */
export interface ChunkText {
  /** The text to send: the public model, and no `"usage":null` when the client did not ask. */
  text: string;
  /** Its delta's content, '' for none: the text billing counts when no usage comes. */
  generated: string;
}

export interface ChunkTextOptions {
  /** The upstream's model as a JSON string literal, as the stream's first chunk wrote it. */
  writtenModel: string;
  /** The public model as a JSON string literal. */
  writtenPublicModel: string;
  /** Whether the client asked for usage (`stream_options.include_usage`). */
  includeUsage: boolean;
}

/**
 * Every key the reading looks at, found in one pass (one regular expression costs less than a
 * search per key): the three it reads, and those that make a chunk one to parse (an error, text
 * other than the delta's content, which billing counts too, tool calls). Inside a JSON string
 * every quote is escaped, so a key found inside one has a backslash before it and sends the
 * chunk to the parser, never the reverse.
 */
const KEYS = /"(?:model|content|usage|error|tool_calls|refusal|reasoning[a-z_]*|arguments)"/g;
const DELTA_OPEN = '"delta":{';
const CONTENT_STRING = '"content":"';
const MODEL_VALUE = '"model":';
const NULL_USAGE_END = ',"usage":null}';
const BACKSLASH = 92;

/** Where the chunk's three keys start; -1 for one it does not have. */
interface KeyPositions {
  model: number;
  content: number;
  usage: number;
}

/**
 * The chunk as text to send and the content it carries, for the common chunk of a native stream:
 * compact JSON naming the stream's upstream model once, a content delta
 * (`"delta":{"content":"..."}`) or a delta without text, and no usage but a trailing
 * `"usage":null`. Null for any other text, which the decoder then parses, validates and rebuilds
 * as before (docs/decisions/hot-path.md, Native chat events not parsed). The text is not proven
 * JSON: a malformed chunk of this shape is passed on as the upstream sent it, as a proxy would.
 */
export function readChunkText(text: string, options: ChunkTextOptions): ChunkText | null {
  if (!text.startsWith('{') || !text.endsWith('}')) return null;
  const keys = keyPositions(text);
  if (keys === null || keys.model === -1) return null;
  const generated = keys.content === -1 ? '' : deltaContent(text, keys.content);
  if (generated === null) return null;
  const modelStart = keys.model + MODEL_VALUE.length;
  if (!text.startsWith(MODEL_VALUE, keys.model) || !text.startsWith(options.writtenModel, modelStart)) {
    return null;
  }
  let end = text.length;
  if (keys.usage !== -1) {
    // Only the last key, null: the value an upstream asked for usage gives every chunk but the last.
    if (keys.usage !== text.length - NULL_USAGE_END.length + 1 || !text.endsWith(NULL_USAGE_END)) return null;
    if (!options.includeUsage) end -= NULL_USAGE_END.length;
  }
  const after = text.slice(modelStart + options.writtenModel.length, end);
  const closing = end === text.length ? '' : '}';
  return { text: `${text.slice(0, modelStart)}${options.writtenPublicModel}${after}${closing}`, generated };
}

/** The positions of the keys read; null when a key appears twice, escaped, or asks for the parser. */
function keyPositions(text: string): KeyPositions | null {
  const keys: KeyPositions = { model: -1, content: -1, usage: -1 };
  KEYS.lastIndex = 0;
  for (let match = KEYS.exec(text); match !== null; match = KEYS.exec(text)) {
    const at = match.index;
    if (text.charCodeAt(at - 1) === BACKSLASH) return null;
    const key = match[0];
    if (key === '"model"' && keys.model === -1) keys.model = at;
    else if (key === '"content"' && keys.content === -1) keys.content = at;
    else if (key === '"usage"' && keys.usage === -1) keys.usage = at;
    else return null;
  }
  return keys;
}

/** The string value of the `"content"` key at `key` when it opens the delta; null otherwise. */
function deltaContent(text: string, key: number): string | null {
  if (!text.startsWith(DELTA_OPEN, key - DELTA_OPEN.length) || !text.startsWith(CONTENT_STRING, key)) {
    return null;
  }
  const start = key + CONTENT_STRING.length;
  const end = closingQuote(text, start);
  return end === -1 ? null : stringValue(text, start, end);
}
