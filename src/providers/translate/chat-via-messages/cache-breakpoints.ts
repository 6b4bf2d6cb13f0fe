/**
 * Prompt caching for Chat and Responses clients on Claude (Anthropic, "Prompt caching"): OpenAI
 * caches a stable prefix by itself, Claude only up to blocks marked `cache_control`. A request
 * whose client marked nothing gets the marks an agent loop needs, three of Anthropic's four: the
 * last tool, the last system block, and the last block of the conversation, so that each call
 * writes the prefix the next one reads (Anthropic looks back from a mark for an earlier entry).
 * A client that marks blocks itself (the LiteLLM convention, chat-via-messages/content.ts) keeps
 * its own marks only; a prompt too short for Claude to cache (under 1,024 tokens, its smallest
 * minimum, by a bound that never undercounts) gets none.
 */
import { inputTokensUpperBound } from '../../../formats/estimate-tokens.ts';
import type {
  AnthropicContentBlock,
  AnthropicMessagesRequest,
  AnthropicTextBlock,
} from '../../../formats/messages/wire.ts';

const EPHEMERAL = Object.freeze({ type: 'ephemeral' });
/** Anthropic's smallest cacheable prompt (Claude Sonnet and Opus; Haiku needs more). */
const MIN_CACHEABLE_TOKENS = 1024;
/** Blocks that take no `cache_control`. */
const UNMARKABLE = new Set(['thinking', 'redacted_thinking']);

export function markStablePrefix(request: AnthropicMessagesRequest): void {
  if (hasMarks(request) || inputTokensUpperBound('messages', request) < MIN_CACHEABLE_TOKENS) return;
  const tool = request.tools?.at(-1);
  if (tool !== undefined) tool.cache_control = EPHEMERAL;
  if (Array.isArray(request.system)) {
    const last = request.system.at(-1);
    if (last !== undefined) last.cache_control = EPHEMERAL;
  }
  const message = request.messages.at(-1);
  if (message === undefined) return;
  if (typeof message.content === 'string') {
    message.content = [
      { type: 'text', text: message.content, cache_control: EPHEMERAL } as AnthropicTextBlock,
    ];
    return;
  }
  const block = message.content.findLast((candidate) => !UNMARKABLE.has(candidate.type)) as
    | (AnthropicContentBlock & { cache_control?: unknown })
    | undefined;
  if (block !== undefined) block.cache_control = EPHEMERAL;
}

function marked(block: object): boolean {
  return (block as { cache_control?: unknown }).cache_control != null;
}

function hasMarks(request: AnthropicMessagesRequest): boolean {
  if (request.tools?.some(marked) || (Array.isArray(request.system) && request.system.some(marked)))
    return true;
  return request.messages.some(
    (message) => typeof message.content !== 'string' && message.content.some(marked),
  );
}
