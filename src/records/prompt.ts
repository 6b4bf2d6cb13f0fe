/**
 * The prompt as a record keeps it (SPEC.md, Request log records: "Prompts stored in logs are
 * truncated to MAX_STRING_LENGTH_PROMPT_IN_DB"): the text of the prompt-bearing fields of any
 * endpoint body, never the whole body.
 */
export function promptOf(body: Readonly<Record<string, unknown>>, maxLength: number): string | null {
  const text = promptText(body);
  if (text === null || maxLength === 0) return null;
  // Cut before cleaning: a 24 MB prompt kept as 2,048 characters need not be scanned whole. The
  // cut leaves room for the NULs cleaning removes.
  return truncate(cleanText(truncate(text, 2 * maxLength)), maxLength);
}

/** Text of a prompt field: chat and Anthropic `messages` (+ `system`), Responses `input` (+ `instructions`), `prompt`. */
function promptText(body: Readonly<Record<string, unknown>>): string | null {
  const parts: string[] = [];
  for (const field of ['system', 'instructions']) {
    const text = contentText(body[field]);
    if (text !== '') parts.push(`${field}: ${text}`);
  }
  if (Array.isArray(body.messages)) {
    for (const message of body.messages) parts.push(messageText(message));
  } else if (body.input !== undefined) {
    parts.push(Array.isArray(body.input) ? body.input.map(messageText).join('\n') : contentText(body.input));
  } else if (body.prompt !== undefined) {
    parts.push(contentText(body.prompt));
  }
  return parts.length === 0 ? null : parts.join('\n');
}

function messageText(message: unknown): string {
  if (typeof message !== 'object' || message === null) return contentText(message);
  const { role, content } = message as { role?: unknown; content?: unknown };
  const text = contentText(content);
  return typeof role === 'string' ? `${role}: ${text}` : text;
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

/**
 * Postgres text and jsonb refuse NUL, and a lone surrogate cannot be encoded in UTF-8 (JSON sent to
 * Postgres refuses it too): one such character must not cost a record its write. NUL is removed, a
 * lone surrogate becomes U+FFFD.
 */
export function cleanText(text: string): string {
  const clean = text.includes('\u0000') ? text.replaceAll('\u0000', '') : text;
  return clean.isWellFormed() ? clean : clean.toWellFormed();
}

/** Cuts to at most `maxLength` UTF-16 units without splitting a surrogate pair. */
export function truncate(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  const end = isHighSurrogate(text.charCodeAt(maxLength - 1)) ? maxLength - 1 : maxLength;
  return text.slice(0, end);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
