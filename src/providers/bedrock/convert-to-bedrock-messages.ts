/**
 * Chat Completions messages -> Converse `system` and `messages` (Bedrock API Reference: Message,
 * ContentBlock, SystemContentBlock, ToolUseBlock, ToolResultBlock). Converse wants alternating user
 * and assistant turns, so consecutive turns of one role (a tool result followed by a user message,
 * parallel tool results) merge into one message.
 */
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ChatMessage } from '../../formats/chat-completions/wire.ts';
import { appendMergedTurn } from '../shared/append-merged-turn.ts';
import { textOf } from '../shared/chat-content-text.ts';
import { functionMessageRefused } from '../shared/unsupported-parameter.ts';
import {
  cacheControlOf,
  cachePointAfter,
  DocumentNames,
  userContentBlocks,
} from './bedrock-content-blocks.ts';
import type { BedrockContentBlock, BedrockMessage, BedrockSystemBlock } from './bedrock-wire-types.ts';

export interface BedrockConversation {
  system: BedrockSystemBlock[];
  messages: BedrockMessage[];
}

/** A system or developer message: one text block per part, each followed by its cache point when marked. */
function systemBlocks(message: Extract<ChatMessage, { role: 'system' | 'developer' }>): BedrockSystemBlock[] {
  if (typeof message.content === 'string') return message.content === '' ? [] : [{ text: message.content }];
  return message.content.flatMap((part) =>
    part.text === '' ? [] : [{ text: part.text }, ...cachePointAfter(part.cache_control)],
  );
}

function parseArguments(raw: string, param: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch (cause) {
    throw new GatewayError('invalid_request', {
      param,
      message: 'Tool call arguments must be valid JSON.',
      cause,
    });
  }
}

/**
 * Claude's signed thinking from `thinking_blocks` (LiteLLM's field, as this adapter returns it),
 * first in the turn as Claude wants it. A block without a signature did not come from Claude and
 * would be refused: it is left out.
 */
function thinkingBlocks(message: Extract<ChatMessage, { role: 'assistant' }>): BedrockContentBlock[] {
  return (message.thinking_blocks ?? []).flatMap((block): BedrockContentBlock[] => {
    if (block.type === 'redacted_thinking') return [{ reasoningContent: { redactedContent: block.data } }];
    return block.signature
      ? [{ reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } } }]
      : [];
  });
}

function assistantBlocks(
  message: Extract<ChatMessage, { role: 'assistant' }>,
  at: string,
): BedrockContentBlock[] {
  const blocks: BedrockContentBlock[] = thinkingBlocks(message);
  const text = textOf(message.content);
  // Converse refuses blank text blocks.
  if (text.trim() !== '') blocks.push({ text }, ...cachePointAfter(cacheControlOf(message.content)));
  for (const [k, call] of (message.tool_calls ?? []).entries()) {
    blocks.push({
      toolUse: {
        toolUseId: call.id,
        name: call.function.name,
        input: parseArguments(call.function.arguments, `${at}.tool_calls[${k}].function.arguments`),
      },
    });
  }
  return blocks;
}

export function convertToBedrockMessages(messages: readonly ChatMessage[]): BedrockConversation {
  const system: BedrockSystemBlock[] = [];
  const turns: BedrockMessage[] = [];
  const documentNames = new DocumentNames();
  const append = (role: BedrockMessage['role'], content: BedrockContentBlock[]): void =>
    appendMergedTurn(turns, 'content', { role, content });
  for (const [i, message] of messages.entries()) {
    const at = `messages[${i}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...systemBlocks(message));
        break;
      case 'user':
        append('user', userContentBlocks(message.content, at, documentNames));
        break;
      case 'assistant':
        append('assistant', assistantBlocks(message, at));
        break;
      case 'tool':
        append('user', [
          { toolResult: { toolUseId: message.tool_call_id, content: [{ text: textOf(message.content) }] } },
          ...cachePointAfter(cacheControlOf(message.content)),
        ]);
        break;
      case 'function':
        throw functionMessageRefused(at);
    }
  }
  return { system, messages: turns };
}
