import type {
  ChatCompletionRequest,
  ChatFunctionTool,
  ChatMessage,
  ChatToolCall,
  ChatToolChoice,
} from '../../../formats/chat-completions/wire.ts';
import type {
  AnthropicContentBlock,
  AnthropicMessageParam,
  AnthropicMessagesRequest,
  AnthropicTextBlock,
  AnthropicTool,
  AnthropicToolChoice,
} from '../../../formats/messages/wire.ts';
import { unsupportedParameter } from '../../shared/unsupported-parameter.ts';
import type { TranslationTarget } from '../../types.ts';
import { withinOutputLimit } from '../shared/output-limit.ts';
import { rejectUntranslatable } from '../shared/unsupported-parameter.ts';
import { convertUserBlocks, textContent, withCache } from './content.ts';
import { applyContextManagement } from './context-management.ts';
import { offeredTools } from './deferred-tools.ts';
import { reasoningEffortFor } from './reasoning.ts';

/**
 * Fields of a Messages request that have a Chat Completions equivalent, and the hints that have
 * none but change nothing in the answer (`service_tier`: capacity; `is_error` of a tool result,
 * whose text says so). `cache_control` is carried onto the Chat parts; `context_management` is
 * applied to the conversation first (context-management.ts). Anything else (container,
 * mcp_servers, ...) is a 400 naming it; docs/providers.md lists every rule.
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
  'top_k',
  'output_format',
  'context_management',
]);

/** Anthropic Messages request -> Chat Completions request (DESIGN.md section 4: translators). */
export function messagesToChatRequest(
  request: AnthropicMessagesRequest,
  target?: TranslationTarget,
): ChatCompletionRequest {
  rejectUntranslatable(request, TRANSLATED);
  const body = applyContextManagement(request);
  const chat: ChatCompletionRequest = {
    model: body.model,
    messages: [...systemMessages(body.system), ...body.messages.flatMap(convertMessage)],
    max_completion_tokens: withinOutputLimit(body.max_tokens, target),
  };
  if (body.stream === true) {
    chat.stream = true;
    // The translator needs the final usage for message_delta, whatever the client asked.
    chat.stream_options = { include_usage: true };
  }
  if (body.temperature !== undefined) chat.temperature = body.temperature;
  if (body.top_p !== undefined) chat.top_p = body.top_p;
  // Not OpenAI's: compatible servers take it, the Gemini adapter maps it, OpenAI's adapter drops it.
  if (body.top_k != null) chat.top_k = body.top_k;
  const effort = reasoningEffortFor(body, target);
  if (effort !== undefined) chat.reasoning_effort = effort;
  if (body.stop_sequences !== undefined && body.stop_sequences.length > 0) chat.stop = body.stop_sequences;
  if (body.metadata?.user_id != null) chat.user = body.metadata.user_id;
  const tools = offeredTools(body.tools ?? [], body.messages);
  if (tools.length > 0) chat.tools = tools.map(convertTool);
  if (body.tool_choice !== undefined) applyToolChoice(chat, body.tool_choice);
  if (body.output_config != null) applyOutputConfig(chat, body.output_config);
  // The structured-outputs beta's name for output_config.format.
  if (body.output_format != null) applyOutputConfig(chat, { format: body.output_format as OutputFormat });
  return chat;
}

function systemMessages(system: AnthropicMessagesRequest['system']): ChatMessage[] {
  if (system === undefined) return [];
  const content = typeof system === 'string' ? system : textContent(system);
  return content === '' || content.length === 0 ? [] : [{ role: 'system', content }];
}

function convertMessage(message: AnthropicMessageParam, index: number): ChatMessage[] {
  if (typeof message.content === 'string') return [{ role: message.role, content: message.content }];
  return message.role === 'user'
    ? convertUserBlocks(message.content, index)
    : [convertAssistantBlocks(message.content, index)];
}

/**
 * Text joined (parts when a block carries a cache breakpoint); tool_use -> tool_calls; earlier
 * thinking is Claude's own and is not sent (DeepSeek, for one, refuses reasoning in its input).
 */
function convertAssistantBlocks(blocks: AnthropicContentBlock[], index: number): ChatMessage {
  const texts: AnthropicTextBlock[] = [];
  const toolCalls: ChatToolCall[] = [];
  for (const block of blocks) {
    if (block.type === 'text') texts.push(block as AnthropicTextBlock);
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
  const text = textContent(texts, '');
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
  return withCache<ChatFunctionTool>({ type: 'function', function: fn }, tool);
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

type OutputFormat = NonNullable<NonNullable<AnthropicMessagesRequest['output_config']>['format']>;

/** Structured outputs (`output_config.format`) -> `response_format` json_schema. */
function applyOutputConfig(
  chat: ChatCompletionRequest,
  config: NonNullable<AnthropicMessagesRequest['output_config']>,
): void {
  for (const [key, value] of Object.entries(config)) {
    // `effort` is read with thinking (reasoning.ts).
    if (key !== 'format' && key !== 'effort' && value != null)
      throw unsupportedParameter(`output_config.${key}`);
  }
  if (config.format == null) return;
  chat.response_format = {
    type: 'json_schema',
    json_schema: { name: 'output', schema: config.format.schema, strict: true },
  };
}
