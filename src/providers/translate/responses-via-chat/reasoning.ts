import type { ChatThinkingBlock } from '../../../formats/chat-completions/wire.ts';
import type { ResponsesRequest } from '../../../formats/responses/wire.ts';

/**
 * Claude's signed thinking blocks ride in a reasoning item's `encrypted_content`, as OpenAI's own
 * reasoning does for a client that keeps no server state (`store: false` with
 * `include: ['reasoning.encrypted_content']`, what Codex sends). When the client sends the item
 * back, the blocks return to Claude before that turn's tool calls, which Claude requires to keep
 * thinking through a tool loop. The text is not encrypted: Claude's signature already guards it.
 */
const MARK = 'switchyard.thinking.v1:';

export function wantsEncryptedReasoning(request: ResponsesRequest): boolean {
  const include = (request as { include?: unknown }).include;
  return Array.isArray(include) && include.includes('reasoning.encrypted_content');
}

export function encodeThinkingBlocks(blocks: readonly ChatThinkingBlock[]): string {
  return MARK + Buffer.from(JSON.stringify(blocks), 'utf8').toString('base64');
}

/** The blocks of a reasoning item this gateway wrote; null for any other (OpenAI's own, say). */
export function thinkingBlocksOfItem(item: { encrypted_content?: unknown }): ChatThinkingBlock[] | null {
  const value = item.encrypted_content;
  if (typeof value !== 'string' || !value.startsWith(MARK)) return null;
  try {
    const blocks: unknown = JSON.parse(Buffer.from(value.slice(MARK.length), 'base64').toString('utf8'));
    return Array.isArray(blocks) ? (blocks as ChatThinkingBlock[]) : null;
  } catch {
    return null;
  }
}
