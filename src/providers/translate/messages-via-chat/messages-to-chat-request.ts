import type {
  AnthropicContentBlock,
  AnthropicMessageParam,
  AnthropicMessagesRequest,
  AnthropicTool,
  AnthropicToolChoice,
} from '../../anthropic/anthropic-messages-wire.ts';
import type {
  ChatCompletionRequest,
  ChatContentPart,
  ChatFunctionTool,
  ChatMessage,
  ChatToolCall,
  ChatToolChoice,
} from '../../shared/chat-completions-wire.ts';
import { unsupportedParameter } from '../../shared/unsupported-parameter.ts';
import { rejectUntranslatable } from '../shared/unsupported-parameter.ts';

/**
 * Fields of a Messages request that have a Chat Completions equivalent, and the hints that have
 * none but change nothing in the answer (`cache_control`: prompt caching; `service_tier`:
 * capacity; `is_error` of a tool result, whose text says so). Anything else (top_k, thinking, container, mcp_servers, ...) is a 400.
 */
const TRANSLATED = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'tools',
  'tool_choice',
  'metadata',
  'output_config',
  'thinking',
  'cache_control',
  'service_tier',
]);

/** Anthropic Messages request -> Chat Completions request (DESIGN.md section 4: translators). */
export function messagesToChatRequest(body: AnthropicMessagesRequest): ChatCompletionRequest {
  rejectUntranslatable(body, TRANSLATED);
  // Only `thinking: {type: 'disabled'}` has a Chat form: asking for nothing.
  if (body.thinking !== undefined && (body.thinking as { type?: string } | null)?.type !== 'disabled') {
    throw unsupportedParameter('thinking');
  }
  const chat: ChatCompletionRequest = {
    model: body.model,
    messages: [...systemMessages(body.system), ...body.messages.flatMap(convertMessage)],
    max_completion_tokens: body.max_tokens,
  };
  if (body.stream === true) {
    chat.stream = true;
    // The translator needs the final usage for message_delta, whatever the client asked.
    chat.stream_options = { include_usage: true };
  }
  if (body.temperature !== undefined) chat.temperature = body.temperature;
  if (body.top_p !== undefined) chat.top_p = body.top_p;
  if (body.stop_sequences !== undefined && body.stop_sequences.length > 0) chat.stop = body.stop_sequences;
  if (body.metadata?.user_id != null) chat.user = body.metadata.user_id;
  if (body.tools !== undefined && body.tools.length > 0) chat.tools = body.tools.map(convertTool);
  if (body.tool_choice !== undefined) applyToolChoice(chat, body.tool_choice);
  if (body.output_config != null) applyOutputConfig(chat, body.output_config);
  return chat;
}

function systemMessages(system: AnthropicMessagesRequest['system']): ChatMessage[] {
  if (system === undefined) return [];
  const text = typeof system === 'string' ? system : system.map((block) => block.text).join('\n');
  return text === '' ? [] : [{ role: 'system', content: text }];
}

function convertMessage(message: AnthropicMessageParam, index: number): ChatMessage[] {
  if (typeof message.content === 'string') return [{ role: message.role, content: message.content }];
  return message.role === 'user'
    ? convertUserBlocks(message.content, index)
    : [convertAssistantBlocks(message.content, index)];
}

/**
 * Tool results become `tool` messages, placed first: Chat Completions wants them right after the
 * assistant message with the calls, which is where Anthropic puts them (first in the next turn).
 */
function convertUserBlocks(blocks: AnthropicContentBlock[], index: number): ChatMessage[] {
  const toolMessages: ChatMessage[] = [];
  const parts: ChatContentPart[] = [];
  for (const block of blocks) {
    if (block.type === 'tool_result') {
      const result = block as Extract<AnthropicContentBlock, { type: 'tool_result' }>;
      toolMessages.push({
        role: 'tool',
        tool_call_id: result.tool_use_id,
        content: toolResultText(result.content, index),
      });
    } else if (block.type === 'text') {
      parts.push({ type: 'text', text: (block as { text: string }).text });
    } else if (block.type === 'image') {
      parts.push(imagePart(block as Extract<AnthropicContentBlock, { type: 'image' }>, index));
    } else {
      throw unsupportedParameter(
        `messages[${index}].content`,
        `Content blocks of type '${block.type}' are not supported by this model.`,
      );
    }
  }
  if (parts.length === 0) return toolMessages;
  const content = parts.length === 1 && parts[0].type === 'text' ? parts[0].text : parts;
  return [...toolMessages, { role: 'user', content }];
}

function toolResultText(
  content: Extract<AnthropicContentBlock, { type: 'tool_result' }>['content'],
  index: number,
): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((block) => {
      if (block.type !== 'text') {
        throw unsupportedParameter(
          `messages[${index}].content`,
          'Tool results may only hold text for this model.',
        );
      }
      return (block as { text: string }).text;
    })
    .join('');
}

function imagePart(block: Extract<AnthropicContentBlock, { type: 'image' }>, index: number): ChatContentPart {
  const source = block.source;
  if (source.type === 'base64') {
    return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } };
  }
  if (source.type === 'url') return { type: 'image_url', image_url: { url: source.url } };
  throw unsupportedParameter(
    `messages[${index}].content`,
    'Image sources of type file are not supported by this model.',
  );
}

/** Text joined; tool_use -> tool_calls; earlier thinking is the upstream's own and has no Chat form. */
function convertAssistantBlocks(blocks: AnthropicContentBlock[], index: number): ChatMessage {
  let text = '';
  const toolCalls: ChatToolCall[] = [];
  for (const block of blocks) {
    if (block.type === 'text') text += (block as { text: string }).text;
    else if (block.type === 'tool_use') {
      const use = block as Extract<AnthropicContentBlock, { type: 'tool_use' }>;
      toolCalls.push({
        id: use.id,
        type: 'function',
        function: { name: use.name, arguments: JSON.stringify(use.input ?? {}) },
      });
    } else if (block.type !== 'thinking' && block.type !== 'redacted_thinking') {
      throw unsupportedParameter(
        `messages[${index}].content`,
        `Content blocks of type '${block.type}' are not supported by this model.`,
      );
    }
  }
  const message: ChatMessage = {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}

function convertTool(tool: AnthropicTool, index: number): ChatFunctionTool {
  if (tool.type != null && tool.type !== 'custom') {
    throw unsupportedParameter(
      `tools[${index}]`,
      `Tools of type '${tool.type}' are not supported by this model.`,
    );
  }
  const fn: ChatFunctionTool['function'] = { name: tool.name, parameters: tool.input_schema };
  if (tool.description !== undefined) fn.description = tool.description;
  if (tool.strict === true) fn.strict = true;
  return { type: 'function', function: fn };
}

function applyToolChoice(chat: ChatCompletionRequest, choice: AnthropicToolChoice): void {
  const mapped: ChatToolChoice =
    choice.type === 'auto'
      ? 'auto'
      : choice.type === 'any'
        ? 'required'
        : choice.type === 'none'
          ? 'none'
          : { type: 'function', function: { name: choice.name } };
  chat.tool_choice = mapped;
  if ('disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use === true) {
    chat.parallel_tool_calls = false;
  }
}

/** Structured outputs (`output_config.format`) -> `response_format` json_schema. */
function applyOutputConfig(
  chat: ChatCompletionRequest,
  config: NonNullable<AnthropicMessagesRequest['output_config']>,
): void {
  for (const [key, value] of Object.entries(config)) {
    if (key !== 'format' && value != null) throw unsupportedParameter(`output_config.${key}`);
  }
  if (config.format == null) return;
  chat.response_format = {
    type: 'json_schema',
    json_schema: { name: 'output', schema: config.format.schema, strict: true },
  };
}
