import { isRecord, type Json } from './json.ts';

/**
 * The text of a request's prompt, by wire format (what the records keep of it, SPEC.md, Request
 * log records): the instructions first, then each message as `role: text`. Images, audio and
 * files are left out; a content value of another shape is kept as compact JSON.
 */

/** Chat Completions: the system prompt is a message like the others. */
export function chatPrompt(body: Json): string | null {
  return joined([messagesText(body.messages)]);
}

/** Messages: `system`, then `messages`. */
export function messagesPrompt(body: Json): string | null {
  return joined([labelled('system', body.system), messagesText(body.messages)]);
}

/** Responses: `instructions`, then `input` (a string or items). */
export function responsesPrompt(body: Json): string | null {
  return joined([labelled('instructions', body.instructions), inputText(body.input)]);
}

/** Embeddings: `input`, a string or one line per input. */
export function embeddingsPrompt(body: Json): string | null {
  return joined([inputText(body.input)]);
}

/** Images and transcriptions: `prompt`. */
export function promptField(body: Json): string | null {
  return joined([contentText(body.prompt)]);
}

function joined(parts: readonly string[]): string | null {
  const present = parts.filter((part) => part !== '');
  return present.length === 0 ? null : present.join('\n');
}

function labelled(field: string, content: unknown): string {
  const text = contentText(content);
  return text === '' ? '' : `${field}: ${text}`;
}

function inputText(input: unknown): string {
  return Array.isArray(input) ? messagesText(input) : contentText(input);
}

function messagesText(messages: unknown): string {
  return Array.isArray(messages) ? messages.map(messageText).join('\n') : '';
}

function messageText(message: unknown): string {
  if (!isRecord(message)) return contentText(message);
  const text = contentText(message.content);
  return typeof message.role === 'string' ? `${message.role}: ${text}` : text;
}

/** A string, or the text parts of a content array (images and audio left out), or compact JSON. */
function contentText(content: unknown): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (typeof part === 'string') return part;
        const text = (part as { text?: unknown } | null)?.text;
        return typeof text === 'string' ? text : '';
      })
      .filter((text) => text !== '')
      .join(' ');
  }
  return safeJson(content);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}
