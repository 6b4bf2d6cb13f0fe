import { isRecord, type Json } from './json.ts';

/**
 * The text of a request's prompt, by wire format (what the records keep of it, SPEC.md, Request
 * log records): the instructions first, then each message as `role: text`. Images, audio and
 * files are left out; a content value of another shape is kept as compact JSON.
 *
 * Only its first `limit` characters are asked for (the records cut it): every string is cut to
 * `limit` before it is joined, and the messages are joined only until `limit` is reached, so a
 * 16 MB prompt is never copied whole into one string (docs/decisions/hot-path.md, Prompt cut while
 * collected). The result starts with the same `limit` characters as the whole text would, and is
 * the whole text when that is shorter.
 */

/** Chat Completions: the system prompt is a message like the others. */
export function chatPrompt(body: Json, limit: number): string | null {
  return joined([messagesText(body.messages, limit)], limit);
}

/** Messages: `system`, then `messages`. */
export function messagesPrompt(body: Json, limit: number): string | null {
  return joined([labelled('system', body.system, limit), messagesText(body.messages, limit)], limit);
}

/** Responses: `instructions`, then `input` (a string or items). */
export function responsesPrompt(body: Json, limit: number): string | null {
  return joined([labelled('instructions', body.instructions, limit), inputText(body.input, limit)], limit);
}

/** Embeddings: `input`, a string or one line per input. */
export function embeddingsPrompt(body: Json, limit: number): string | null {
  return joined([inputText(body.input, limit)], limit);
}

/** Images and transcriptions: `prompt`. */
export function promptField(body: Json, limit: number): string | null {
  return joined([contentText(body.prompt, limit)], limit);
}

function joined(parts: readonly string[], limit: number): string | null {
  const present = parts.filter((part) => part !== '');
  return present.length === 0 ? null : joinUpTo(present, (part) => part, '\n', limit);
}

/** `items` as text, joined with `separator`, no further than needed to reach `limit` characters. */
function joinUpTo<T>(
  items: readonly T[],
  text: (item: T) => string,
  separator: string,
  limit: number,
): string {
  let joinedText = '';
  for (let i = 0; i < items.length && joinedText.length < limit; i++) {
    joinedText = i === 0 ? text(items[i]) : `${joinedText}${separator}${text(items[i])}`;
  }
  return joinedText;
}

/** The first `limit` characters of `text` (a slice of a long string is not a copy of it). */
function cut(text: string, limit: number): string {
  return text.length > limit ? text.slice(0, limit) : text;
}

function labelled(field: string, content: unknown, limit: number): string {
  const text = contentText(content, limit);
  return text === '' ? '' : `${field}: ${text}`;
}

function inputText(input: unknown, limit: number): string {
  return Array.isArray(input) ? messagesText(input, limit) : contentText(input, limit);
}

function messagesText(messages: unknown, limit: number): string {
  return Array.isArray(messages) ? joinUpTo(messages, (m) => messageText(m, limit), '\n', limit) : '';
}

function messageText(message: unknown, limit: number): string {
  if (!isRecord(message)) return contentText(message, limit);
  const text = contentText(message.content, limit);
  return typeof message.role === 'string' ? `${message.role}: ${text}` : text;
}

/** A string, or the text parts of a content array (images and audio left out), or compact JSON. */
function contentText(content: unknown, limit: number): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return cut(content, limit);
  if (Array.isArray(content)) {
    const texts = content
      .map((part) => {
        if (typeof part === 'string') return part;
        const text = (part as { text?: unknown } | null)?.text;
        return typeof text === 'string' ? text : '';
      })
      .filter((text) => text !== '');
    return joinUpTo(texts, (text) => cut(text, limit), ' ', limit);
  }
  return cut(safeJson(content), limit);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}
