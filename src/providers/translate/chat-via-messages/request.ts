import type {
  ChatCompletionRequest,
  ChatFunctionTool,
  ChatMessage,
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
import { claudeJsonSchema } from '../../anthropic/claude-json-schema.ts';
import { functionMessageRefused, unsupportedParameter } from '../../shared/unsupported-parameter.ts';
import type { TranslationTarget } from '../../types.ts';
import { withinOutputLimit } from '../shared/output-limit.ts';
import { rejectUntranslatable } from '../shared/unsupported-parameter.ts';
import { markStablePrefix } from './cache-breakpoints.ts';
import {
  assistantBlocks,
  midConversationInstruction,
  textBlocks,
  toolResultBlock,
  userContent,
} from './content.ts';
import { applyJsonModeTool } from './json-mode-tool.ts';
import { applyReasoningEffort } from './reasoning.ts';

/**
 * Anthropic requires `max_tokens`; Chat does not. When the client gives neither
 * max_completion_tokens nor max_tokens, the model's output limit from the catalog is asked for
 * (what an OpenAI model gives without a cap); this only for a model the catalog does not know.
 */
export const DEFAULT_MAX_TOKENS = 4096;

/** Anthropic's temperature range is 0..1; Chat's is 0..2. Values above are refused, not clamped. */
const MAX_TEMPERATURE = 1;

/**
 * Fields of a Chat request with a Messages equivalent, and hints with none that change nothing in
 * the answer (`store`, `metadata`: OpenAI-side storage; `service_tier`, `prompt_cache_key`,
 * `seed`: best-effort hints; `verbosity`: a length hint Claude has no parameter for, which Codex
 * sends on every turn; `stream_options`: read by the stream translator).
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
  'reasoning_effort',
  'verbosity',
]);

/** Values of untranslatable fields that ask for nothing and so are accepted. */
const NEUTRAL: Readonly<Record<string, readonly unknown[]>> = Object.freeze({
  n: [1],
  logprobs: [false],
  frequency_penalty: [0],
  presence_penalty: [0],
});

/** Chat Completions request -> Anthropic Messages request. */
export function chatToMessagesRequest(
  body: ChatCompletionRequest,
  target?: TranslationTarget,
): AnthropicMessagesRequest {
  rejectUntranslatable(body, TRANSLATED, NEUTRAL);
  const { system, messages } = convertConversation(body.messages);
  const request: AnthropicMessagesRequest = {
    model: body.model,
    max_tokens: maxTokens(body, target),
    messages,
  };
  if (system.length > 0) request.system = system;
  if (body.stream === true) request.stream = true;
  applySampling(request, body);
  if (body.stop != null) request.stop_sequences = typeof body.stop === 'string' ? [body.stop] : body.stop;
  const user = body.user ?? (typeof body.safety_identifier === 'string' ? body.safety_identifier : undefined);
  if (user !== undefined) request.metadata = { user_id: user };
  if (body.tools !== undefined && body.tools.length > 0) request.tools = body.tools.map(convertTool);
  const choice = toolChoice(body.tool_choice, body.parallel_tool_calls);
  if (choice !== undefined) request.tool_choice = choice;
  applyResponseFormat(request, body.response_format);
  applyReasoningEffort(request, body.reasoning_effort);
  markStablePrefix(request);
  return request;
}

function maxTokens(body: ChatCompletionRequest, target: TranslationTarget | undefined): number {
  const requested = body.max_completion_tokens ?? body.max_tokens;
  if (requested == null) return target?.maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  return withinOutputLimit(requested, target);
}

/**
 * Anthropic has one system prompt, at the top: the system and developer messages before the first
 * other message become it, in order; later ones stay in place (midConversationInstruction).
 * Messages left without content (empty text) are not sent.
 */
function convertConversation(chat: ChatMessage[]): {
  system: AnthropicTextBlock[];
  messages: AnthropicMessageParam[];
} {
  const system: AnthropicTextBlock[] = [];
  const messages: AnthropicMessageParam[] = [];
  chat.forEach((message, index) => {
    if (isInstruction(message)) {
      if (messages.length === 0) system.push(...textBlocks(message.content));
      else appendMerged(messages, midConversationInstruction(message.content));
      return;
    }
    const converted = convertMessage(message, index);
    if (converted.content.length > 0) appendMerged(messages, converted);
  });
  return { system, messages };
}

function isInstruction(
  message: ChatMessage,
): message is Extract<ChatMessage, { role: 'system' | 'developer' }> {
  return message.role === 'system' || message.role === 'developer';
}

/**
 * Temperature (0..1 on Claude; above is refused, not clamped) and top_p. Current Claude models
 * refuse both in one request: when the client sends both, temperature is kept and top_p dropped.
 */
function applySampling(request: AnthropicMessagesRequest, body: ChatCompletionRequest): void {
  if (body.temperature != null) {
    if (body.temperature > MAX_TEMPERATURE) {
      throw unsupportedParameter('temperature', 'The temperature must be between 0 and 1 for this model.');
    }
    request.temperature = body.temperature;
  } else if (body.top_p != null) request.top_p = body.top_p;
}

function convertMessage(
  message: Exclude<ChatMessage, { role: 'system' | 'developer' }>,
  index: number,
): AnthropicMessageParam {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: userContent(message.content, index) };
    case 'tool':
      return { role: 'user', content: [toolResultBlock(message, index)] };
    case 'assistant':
      return { role: 'assistant', content: assistantBlocks(message, index) };
    case 'function':
      throw functionMessageRefused(`messages[${index}]`);
  }
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
  const fn = (tool as ChatFunctionTool).function;
  const converted: AnthropicTool = {
    name: fn.name,
    input_schema: fn.parameters ?? { type: 'object', properties: {} },
  };
  if (fn.description !== undefined) converted.description = fn.description;
  // Strict tool use (structured outputs) has the same name and meaning on Claude.
  if (fn.strict != null) converted.strict = fn.strict;
  // Strict tool use holds the input schema to structured outputs' rules.
  if (fn.strict === true)
    converted.input_schema = claudeJsonSchema(converted.input_schema) as Record<string, unknown>;
  const cache = (tool as { cache_control?: unknown }).cache_control;
  if (cache != null) converted.cache_control = cache;
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

/** json_schema -> structured outputs (`output_config.format`); json_object -> the JSON tool. */
function applyResponseFormat(
  request: AnthropicMessagesRequest,
  format: ChatCompletionRequest['response_format'],
): void {
  if (format === undefined || format.type === 'text') return;
  if (format.type === 'json_object') {
    applyJsonModeTool(request);
    return;
  }
  if (format.type !== 'json_schema') throw unsupportedParameter('response_format');
  // The schema as Claude's structured outputs take it: what it cannot enforce goes to descriptions.
  const schema = claudeJsonSchema(format.json_schema.schema ?? {}) as Record<string, unknown>;
  request.output_config = { format: { type: 'json_schema', schema } };
}
