/**
 * Chat Completions messages -> Converse `system` and `messages` (Bedrock API Reference: Message,
 * ContentBlock, SystemContentBlock, ToolUseBlock, ToolResultBlock). Converse wants alternating user
 * and assistant turns, so consecutive turns of one role (a tool result followed by a user message,
 * parallel tool results) merge into one message.
 */
import { GatewayError } from '../../errors/gateway-error.ts';
import { appendMergedTurn } from '../shared/append-merged-turn.ts';
import type { ChatContentPart, ChatMessage } from '../shared/chat-completions-wire.ts';
import { textOf } from '../shared/chat-content-text.ts';
import { dataUrlAsBase64 } from '../shared/data-url.ts';
import { unsupportedParameter } from '../shared/unsupported-parameter.ts';
import type { BedrockContentBlock, BedrockImageFormat, BedrockMessage } from './bedrock-wire-types.ts';

export interface BedrockConversation {
  system: Array<{ text: string }>;
  messages: BedrockMessage[];
}

const IMAGE_FORMATS: Readonly<Record<string, BedrockImageFormat>> = Object.freeze({
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
});

function userBlocks(content: string | ChatContentPart[], at: string): BedrockContentBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return content.map((part, j): BedrockContentBlock => {
    if (part.type === 'text') return { text: part.text };
    if (part.type === 'image_url') return imageBlock(part.image_url.url, `${at}.content[${j}].image_url.url`);
    throw unsupportedParameter(
      `${at}.content[${j}]`,
      `Content parts of type ${part.type} are not supported by this model.`,
    );
  });
}

/** Converse takes image bytes only (or S3 locations), so a remote URL cannot be passed on. */
function imageBlock(url: string, param: string): BedrockContentBlock {
  const data = dataUrlAsBase64(url);
  if (!data) throw unsupportedParameter(param, 'Images must be sent as base64 data URLs for this model.');
  const format = IMAGE_FORMATS[data.mediaType];
  if (!format)
    throw unsupportedParameter(param, 'The image format is not supported: use PNG, JPEG, GIF or WebP.');
  return { image: { format, source: { bytes: data.base64 } } };
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

function assistantBlocks(
  message: Extract<ChatMessage, { role: 'assistant' }>,
  at: string,
): BedrockContentBlock[] {
  const blocks: BedrockContentBlock[] = [];
  const text = textOf(message.content);
  // Converse refuses blank text blocks.
  if (text.trim() !== '') blocks.push({ text });
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
  const system: Array<{ text: string }> = [];
  const turns: BedrockMessage[] = [];
  const append = (role: BedrockMessage['role'], content: BedrockContentBlock[]): void =>
    appendMergedTurn(turns, 'content', { role, content });
  for (const [i, message] of messages.entries()) {
    const at = `messages[${i}]`;
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = textOf(message.content);
        if (text !== '') system.push({ text });
        break;
      }
      case 'user':
        append('user', userBlocks(message.content, at));
        break;
      case 'assistant':
        append('assistant', assistantBlocks(message, at));
        break;
      case 'tool':
        append('user', [
          { toolResult: { toolUseId: message.tool_call_id, content: [{ text: textOf(message.content) }] } },
        ]);
        break;
    }
  }
  return { system, messages: turns };
}
