import type {
  AnthropicContentBlock,
  AnthropicMessageParam,
  AnthropicMessagesRequest,
  AnthropicTextBlock,
  AnthropicTool,
  AnthropicToolChoice,
} from '../../anthropic/anthropic-messages-wire.ts';
import type {
  ChatCompletionRequest,
  ChatContentPart,
  ChatMessage,
  ChatTextPart,
  ChatToolChoice,
} from '../../shared/chat-completions-wire.ts';
import { parseDataUrl } from '../../shared/data-url.ts';
import { unsupportedParameter } from '../../shared/unsupported-parameter.ts';
import { parseToolArguments, rejectUntranslatable } from '../shared/unsupported-parameter.ts';

/**
 * Anthropic requires `max_tokens`; Chat does not. When the client gives neither
 * max_completion_tokens nor max_tokens, this is asked for: enough for a long answer on every
 * current Claude model, and a documented, visible default rather than a model's maximum.
 */
export const DEFAULT_MAX_TOKENS = 4096;

/** Anthropic's temperature range is 0..1; Chat's is 0..2. Values above are refused, not clamped. */
const MAX_TEMPERATURE = 1;

/**
 * Fields of a Chat request with a Messages equivalent, and hints with none that change nothing in
 * the answer (`store`, `metadata`: OpenAI-side storage; `service_tier`, `prompt_cache_key`,
 * `seed`: best-effort hints; `stream_options`: read by the stream translator).
 */
const TRANSLATED = new Set([
  'model',
  'messages',
  'max_tokens',
  'max_completion_tokens',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'stop',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'user',
  'safety_identifier',
  'response_format',
  'store',
  'metadata',
  'service_tier',
  'prompt_cache_key',
  'seed',
]);

/** Values of untranslatable fields that ask for nothing and so are accepted. */
const NEUTRAL: Readonly<Record<string, readonly unknown[]>> = Object.freeze({
  n: [1],
  logprobs: [false],
  frequency_penalty: [0],
  presence_penalty: [0],
});

/** Chat Completions request -> Anthropic Messages request. */
export function chatToMessagesRequest(body: ChatCompletionRequest): AnthropicMessagesRequest {
  rejectUntranslatable(body, TRANSLATED, NEUTRAL);
  const system: AnthropicTextBlock[] = [];
  const messages: AnthropicMessageParam[] = [];
  body.messages.forEach((message, index) => {
    // Anthropic has one system prompt: system and developer messages are hoisted into it, in order.
    if (isInstruction(message)) {
      system.push(...textBlocks(message.content).map((text) => ({ type: 'text' as const, text })));
      return;
    }
    appendMerged(messages, convertMessage(message, index));
  });
  const request: AnthropicMessagesRequest = {
    model: body.model,
    max_tokens: body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_MAX_TOKENS,
    messages,
  };
  if (system.length > 0) request.system = system;
  if (body.stream === true) request.stream = true;
  if (body.temperature != null) {
    if (body.temperature > MAX_TEMPERATURE) {
      throw unsupportedParameter('temperature', 'The temperature must be between 0 and 1 for this model.');
    }
    request.temperature = body.temperature;
  }
  if (body.top_p != null) request.top_p = body.top_p;
  if (body.stop != null) request.stop_sequences = typeof body.stop === 'string' ? [body.stop] : body.stop;
  const user = body.user ?? (typeof body.safety_identifier === 'string' ? body.safety_identifier : undefined);
  if (user !== undefined) request.metadata = { user_id: user };
  if (body.tools !== undefined && body.tools.length > 0) request.tools = body.tools.map(convertTool);
  const choice = toolChoice(body.tool_choice, body.parallel_tool_calls);
  if (choice !== undefined) request.tool_choice = choice;
  applyResponseFormat(request, body.response_format);
  return request;
}

function isInstruction(
  message: ChatMessage,
): message is Extract<ChatMessage, { role: 'system' | 'developer' }> {
  return message.role === 'system' || message.role === 'developer';
}

function textBlocks(content: string | ChatTextPart[]): string[] {
  return typeof content === 'string' ? (content === '' ? [] : [content]) : content.map((part) => part.text);
}

function convertMessage(
  message: Exclude<ChatMessage, { role: 'system' | 'developer' }>,
  index: number,
): AnthropicMessageParam {
  switch (message.role) {
    case 'user':
      return {
        role: 'user',
        content:
          typeof message.content === 'string'
            ? message.content
            : message.content.map((p) => userBlock(p, index)),
      };
    case 'tool':
      return {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: message.tool_call_id,
            content:
              typeof message.content === 'string' ? message.content : textBlocks(message.content).join(''),
          },
        ],
      };
    case 'assistant':
      return { role: 'assistant', content: assistantBlocks(message, index) };
  }
}

function userBlock(part: ChatContentPart, index: number): AnthropicContentBlock {
  if (part.type === 'text') return { type: 'text', text: (part as ChatTextPart).text };
  if (part.type === 'image_url') {
    const url = (part as Extract<ChatContentPart, { type: 'image_url' }>).image_url.url;
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
  throw unsupportedParameter(
    `messages[${index}].content`,
    `Content parts of type '${part.type}' are not supported by this model.`,
  );
}

function assistantBlocks(
  message: Extract<ChatMessage, { role: 'assistant' }>,
  index: number,
): AnthropicContentBlock[] {
  const blocks: AnthropicContentBlock[] = [];
  const content = message.content;
  if (typeof content === 'string') {
    if (content !== '') blocks.push({ type: 'text', text: content });
  } else if (content != null) {
    for (const part of content) {
      const text = part.type === 'text' ? part.text : part.refusal;
      if (text !== '') blocks.push({ type: 'text', text });
    }
  }
  for (const call of message.tool_calls ?? []) {
    const input = parseToolArguments(call.function.arguments, `messages[${index}].tool_calls`);
    blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input });
  }
  return blocks;
}

/**
 * Anthropic merges consecutive turns of one role; merging here keeps tool results of parallel
 * calls in one user turn, where the API expects them.
 */
function appendMerged(messages: AnthropicMessageParam[], next: AnthropicMessageParam): void {
  const last = messages.at(-1);
  if (last === undefined || last.role !== next.role) {
    messages.push(next);
    return;
  }
  last.content = [...asBlocks(last.content), ...asBlocks(next.content)];
}

function asBlocks(content: AnthropicMessageParam['content']): AnthropicContentBlock[] {
  return typeof content === 'string' ? (content === '' ? [] : [{ type: 'text', text: content }]) : content;
}

function convertTool(
  tool: NonNullable<ChatCompletionRequest['tools']>[number],
  index: number,
): AnthropicTool {
  if (tool.type !== 'function' || !('function' in tool)) {
    throw unsupportedParameter(
      `tools[${index}]`,
      `Tools of type '${tool.type}' are not supported by this model.`,
    );
  }
  const fn = (
    tool as { function: { name: string; description?: string; parameters?: Record<string, unknown> } }
  ).function;
  const converted: AnthropicTool = {
    name: fn.name,
    input_schema: fn.parameters ?? { type: 'object', properties: {} },
  };
  if (fn.description !== undefined) converted.description = fn.description;
  return converted;
}

function toolChoice(
  choice: ChatToolChoice | undefined,
  parallel: boolean | undefined,
): AnthropicToolChoice | undefined {
  const disableParallel = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return parallel === false ? { type: 'auto', ...disableParallel } : undefined;
  if (choice === 'auto') return { type: 'auto', ...disableParallel };
  if (choice === 'required') return { type: 'any', ...disableParallel };
  if (choice === 'none') return { type: 'none' };
  if (choice.type === 'function' && typeof choice.function === 'object' && choice.function !== null) {
    return { type: 'tool', name: (choice.function as { name: string }).name, ...disableParallel };
  }
  throw unsupportedParameter('tool_choice');
}

/** json_schema -> structured outputs (`output_config.format`); json_object has no equivalent. */
function applyResponseFormat(
  request: AnthropicMessagesRequest,
  format: ChatCompletionRequest['response_format'],
): void {
  if (format === undefined || format.type === 'text') return;
  if (format.type !== 'json_schema') throw unsupportedParameter('response_format');
  request.output_config = { format: { type: 'json_schema', schema: format.json_schema.schema ?? {} } };
}
