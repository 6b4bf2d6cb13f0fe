import type {
  ChatCacheControl,
  ChatContentPart,
  ChatFilePart,
  ChatMessage,
  ChatTextPart,
} from '../../../formats/chat-completions/wire.ts';
import type {
  AnthropicContentBlock,
  AnthropicMessageParam,
  AnthropicTextBlock,
} from '../../../formats/messages/wire.ts';
import { parseDataUrl } from '../../shared/data-url.ts';
import { unsupportedParameter } from '../../shared/unsupported-parameter.ts';
import { parseToolArguments } from '../shared/unsupported-parameter.ts';

type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

/** `cache_control` of a part (the LiteLLM / OpenRouter convention) as Anthropic's block field. */
function withCache<Block extends AnthropicContentBlock>(block: Block, cache?: ChatCacheControl): Block {
  return cache == null ? block : { ...block, cache_control: cache };
}

/**
 * Text blocks of a system, developer or assistant content value. Empty text becomes no block:
 * Anthropic refuses empty text blocks.
 */
export function textBlocks(content: string | ChatTextPart[] | null | undefined): AnthropicTextBlock[] {
  if (content == null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content
    .filter((part) => part.text !== '')
    .map((part) => withCache<AnthropicTextBlock>({ type: 'text', text: part.text }, part.cache_control));
}

/**
 * A system or developer message met after the conversation started: Anthropic has one system
 * prompt, at the top, so the instruction stays where it was said, as user text marked
 * `<system>...</system>` (documented in docs/providers.md, "Translation rules").
 */
export function midConversationInstruction(content: string | ChatTextPart[]): AnthropicMessageParam {
  const blocks = textBlocks(content).map((block) => ({
    ...block,
    text: `<system>\n${block.text}\n</system>`,
  }));
  return { role: 'user', content: blocks };
}

/** A user message: text, images and files as blocks; empty text parts are left out. */
export function userContent(
  content: string | ChatContentPart[],
  index: number,
): string | AnthropicContentBlock[] {
  if (typeof content === 'string') return content;
  return content.flatMap((part) => {
    if (part.type === 'text' && part.text === '') return [];
    return [withCache(userBlock(part, index), (part as { cache_control?: ChatCacheControl }).cache_control)];
  });
}

function userBlock(part: ChatContentPart, index: number): AnthropicContentBlock {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (part.type === 'image_url') {
    const url = part.image_url.url;
    const data = parseDataUrl(url);
    if (data?.base64)
      return { type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.data } };
    if (url.startsWith('data:')) {
      throw unsupportedParameter(
        `messages[${index}].content`,
        'Image data URLs must be base64 for this model.',
      );
    }
    return { type: 'image', source: { type: 'url', url } };
  }
  if (part.type === 'file') return documentBlock(part, index);
  throw unsupportedParameter(
    `messages[${index}].content`,
    `Content parts of type '${part.type}' are not supported by this model.`,
  );
}

/** A `file` part with inline data: a PDF or plain-text document block. File ids are OpenAI's own. */
function documentBlock(part: ChatFilePart, index: number): AnthropicContentBlock {
  const data = part.file.file_data === undefined ? null : parseDataUrl(part.file.file_data);
  const title = part.file.filename === undefined ? {} : { title: part.file.filename };
  if (data?.mediaType === 'application/pdf' && data.base64) {
    return {
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: data.data },
      ...title,
    };
  }
  if (data?.mediaType === 'text/plain') {
    const text = data.base64
      ? Buffer.from(data.data, 'base64').toString('utf8')
      : decodeURIComponent(data.data);
    return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: text }, ...title };
  }
  throw unsupportedParameter(
    `messages[${index}].content`,
    'File parts must carry a PDF or plain-text file as a base64 data URL (file_data) for this model.',
  );
}

/**
 * A tool message as a tool_result block; a breakpoint on any of its parts marks the block. Its
 * text parts are joined; image parts (a screenshot tool, LiteLLM's convention for tool messages)
 * stay images inside the result, which Claude reads there.
 */
export function toolResultBlock(
  message: Extract<ChatMessage, { role: 'tool' }>,
  index: number,
): AnthropicContentBlock {
  const content = message.content;
  const cache =
    typeof content === 'string' ? undefined : content.findLast((p) => p.cache_control)?.cache_control;
  const result =
    typeof content === 'string' ? content : toolResultContent(content as ChatContentPart[], index);
  return withCache({ type: 'tool_result', tool_use_id: message.tool_call_id, content: result }, cache);
}

function toolResultContent(parts: ChatContentPart[], index: number): string | AnthropicContentBlock[] {
  if (!parts.some((part) => part.type === 'image_url'))
    return parts.map((part) => (part as ChatTextPart).text).join('');
  return parts.map((part) => userBlock(part, index));
}

/**
 * An assistant message: its earlier thinking (kept as `thinking_blocks`) first, as Claude wants it
 * back, then text (never an empty block) and tool calls.
 */
export function assistantBlocks(message: AssistantMessage, index: number): AnthropicContentBlock[] {
  const blocks: AnthropicContentBlock[] = [...(message.thinking_blocks ?? [])];
  const content = message.content;
  if (typeof content === 'string' || content == null) blocks.push(...textBlocks(content));
  else {
    for (const part of content) {
      const text = part.type === 'text' ? part.text : part.refusal;
      if (text !== '') blocks.push(withCache({ type: 'text', text }, (part as ChatTextPart).cache_control));
    }
  }
  for (const call of message.tool_calls ?? []) {
    const input = parseToolArguments(call.function.arguments, `messages[${index}].tool_calls`);
    blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input });
  }
  return blocks;
}
