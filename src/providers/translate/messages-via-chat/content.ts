import type {
  ChatCacheControl,
  ChatContentPart,
  ChatMessage,
  ChatTextPart,
} from '../../../formats/chat-completions/wire.ts';
import type {
  AnthropicContentBlock,
  AnthropicImageBlock,
  AnthropicTextBlock,
  AnthropicToolResultBlock,
} from '../../../formats/messages/wire.ts';
import { unsupportedParameter } from '../../shared/unsupported-parameter.ts';
import { toolReferenceText } from './deferred-tools.ts';

type Block = Record<string, unknown> & { type: string };
type Source = { type?: string; media_type?: string; data?: string; url?: string; content?: unknown };

/** Anthropic's block `cache_control` kept on the Chat part (the LiteLLM / OpenRouter convention). */
export function withCache<Part extends object>(part: Part, block: object): Part {
  const cache = (block as { cache_control?: unknown }).cache_control;
  return cache == null ? part : { ...part, cache_control: cache as ChatCacheControl };
}

function refuse(index: number, message: string): never {
  throw unsupportedParameter(`messages[${index}].content`, message);
}

/** Text blocks as Chat text parts, or one string when no block carries a cache breakpoint. */
export function textContent(
  blocks: readonly AnthropicTextBlock[],
  separator = '\n',
): string | ChatTextPart[] {
  if (blocks.every((block) => block.cache_control == null))
    return blocks.map((block) => block.text).join(separator);
  return blocks.map((block) => withCache<ChatTextPart>({ type: 'text', text: block.text }, block));
}

/** The Chat parts of one user-side block: text, image, or document. */
export function userParts(block: Block, index: number): ChatContentPart[] {
  if (block.type === 'text')
    return [withCache<ChatTextPart>({ type: 'text', text: String(block.text) }, block)];
  if (block.type === 'image')
    return [withCache(imagePart(block as unknown as AnthropicImageBlock, index), block)];
  if (block.type === 'document') return documentParts(block, index).map((part) => withCache(part, block));
  return refuse(index, `Content blocks of type '${block.type}' are not supported by this model.`);
}

function imagePart(block: AnthropicImageBlock, index: number): ChatContentPart {
  const source = block.source;
  if (source.type === 'base64') {
    return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } };
  }
  if (source.type === 'url') return { type: 'image_url', image_url: { url: source.url } };
  return refuse(index, 'Image sources of type file are not supported by this model.');
}

/**
 * A document: a base64 PDF becomes a Chat `file` part (inline `file_data`); plain text, and a
 * document given as content blocks, become text parts (title and context first). A PDF by URL is
 * refused rather than fetched: the gateway does not download what a request points at.
 */
function documentParts(block: Block, index: number): ChatContentPart[] {
  const source = (block.source ?? {}) as Source;
  const title = typeof block.title === 'string' ? block.title : undefined;
  if (source.type === 'base64' && source.media_type === 'application/pdf') {
    const file_data = `data:application/pdf;base64,${source.data}`;
    return [{ type: 'file', file: { file_data, filename: title ?? 'document.pdf' } }];
  }
  const heading = [title, typeof block.context === 'string' ? block.context : undefined].filter(Boolean);
  if (source.type === 'text') {
    return [{ type: 'text', text: [...heading, String(source.data ?? '')].join('\n\n') }];
  }
  if (source.type === 'content') {
    const inner =
      typeof source.content === 'string' ? [{ type: 'text', text: source.content }] : source.content;
    const parts = (inner as Block[]).flatMap((item) => userParts(item, index));
    return heading.length > 0 ? [{ type: 'text', text: heading.join('\n\n') }, ...parts] : parts;
  }
  return refuse(
    index,
    `Document sources of type '${source.type}' are not supported by this model: send the PDF as base64, or the text.`,
  );
}

/**
 * A tool result: its text as the `tool` message. Chat tool messages hold only text, so images and
 * documents in the result go to the user message that follows the tool messages, after a text
 * part naming the call they came from.
 */
export function toolResultMessage(
  result: AnthropicToolResultBlock,
  index: number,
): { message: ChatMessage; carried: ChatContentPart[] } {
  const blocks = typeof result.content === 'string' ? [] : ((result.content ?? []) as Block[]);
  const texts = typeof result.content === 'string' ? [result.content] : [];
  const carried: ChatContentPart[] = [];
  for (const block of blocks) {
    if (block.type === 'text') texts.push(String(block.text));
    else if (block.type === 'tool_reference') texts.push(toolReferenceText(block));
    else carried.push(...userParts(block, index));
  }
  if (carried.length > 0) {
    carried.unshift({ type: 'text', text: `Attachments of tool result ${result.tool_use_id}:` });
    if (texts.length === 0) texts.push('The attachments follow in the next message.');
  }
  const text = texts.join('');
  const content =
    result.cache_control == null ? text : [withCache<ChatTextPart>({ type: 'text', text }, result)];
  return { message: { role: 'tool', tool_call_id: result.tool_use_id, content }, carried };
}

/** User blocks: tool results first (as `tool` messages), then one user message with the rest. */
export function convertUserBlocks(blocks: AnthropicContentBlock[], index: number): ChatMessage[] {
  const toolMessages: ChatMessage[] = [];
  const carried: ChatContentPart[] = [];
  const parts: ChatContentPart[] = [];
  for (const block of blocks as Block[]) {
    if (block.type === 'tool_result') {
      const converted = toolResultMessage(block as unknown as AnthropicToolResultBlock, index);
      toolMessages.push(converted.message);
      carried.push(...converted.carried);
    } else parts.push(...userParts(block, index));
  }
  const all = [...carried, ...parts];
  if (all.length === 0) return toolMessages;
  const only = all[0];
  const plain = all.length === 1 && only.type === 'text' && only.cache_control == null;
  return [...toolMessages, { role: 'user', content: plain ? only.text : all }];
}
