/**
 * Tool call ids for Gemini function calls. Gemini names no call ids of its own in generateContent,
 * but thinking models attach a `thoughtSignature` to a function call part that must come back
 * with that part in the next turn, or Gemini 3 answers 400 (Gemini API, "Thought signatures").
 * Chat Completions clients echo only the tool call id, so the signature travels inside it:
 * `call_<random>` or `call_<random>__ts_<signature as base64url>`. Base64url keeps the id within
 * `[A-Za-z0-9_-]`, the character set every client and the Anthropic translation accept.
 */
import { randomBytes } from 'node:crypto';

const PREFIX = 'call_';
const SEPARATOR = '__ts_';
/** The documented stand-in for a signature when a history was not produced by Gemini. */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

export function newToolCallId(thoughtSignature?: string): string {
  // Hex: the random part never contains the separator.
  const id = `${PREFIX}${randomBytes(12).toString('hex')}`;
  if (!thoughtSignature) return id;
  return `${id}${SEPARATOR}${Buffer.from(thoughtSignature, 'base64').toString('base64url')}`;
}

/** The thought signature carried by an id this adapter made, or undefined. */
export function thoughtSignatureOf(toolCallId: string): string | undefined {
  if (!toolCallId.startsWith(PREFIX)) return undefined;
  const at = toolCallId.indexOf(SEPARATOR, PREFIX.length);
  if (at === -1) return undefined;
  const encoded = toolCallId.slice(at + SEPARATOR.length);
  return encoded === '' ? undefined : Buffer.from(encoded, 'base64url').toString('base64');
}
