import type { ChatContentPart } from '../../formats/chat-completions/wire.ts';

/** The text of a Chat Completions content value: a string, or its text and refusal parts joined. */
export function textOf(content: string | readonly ChatContentPart[] | null | undefined): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  let text = '';
  for (const part of content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'refusal') text += part.refusal;
  }
  return text;
}
