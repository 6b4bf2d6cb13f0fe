import type {
  ChatCompletionRequest,
  ChatContentPart,
  ChatFunctionTool,
  ChatMessage,
  ChatThinkingBlock,
  ChatToolChoice,
} from '../../../formats/chat-completions/wire.ts';
import type {
  ResponsesContentPart,
  ResponsesFunctionCallItem,
  ResponsesInputItem,
  ResponsesMessageItem,
  ResponsesRequest,
} from '../../../formats/responses/wire.ts';
import { unsupportedParameter } from '../../shared/unsupported-parameter.ts';
import { rejectUntranslatable } from '../shared/unsupported-parameter.ts';
import { thinkingBlocksOfItem } from './reasoning.ts';

/**
 * Fields of a Responses request with a Chat equivalent, and the ones the gateway itself serves
 * (`store`, `metadata`: stored response state, DESIGN.md section 5; `include`: extra output the
 * translation never produces; `reasoning.summary`, `truncation: disabled`: nothing to do).
 * `previous_response_id` must have been inlined into `input` by the pipeline before translation.
 */
const TRANSLATED = new Set([
  'model',
  'input',
  'instructions',
  'stream',
  'max_output_tokens',
  'temperature',
  'top_p',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'text',
  'reasoning',
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'service_tier',
  'store',
  'metadata',
  'include',
]);

const NEUTRAL: Readonly<Record<string, readonly unknown[]>> = Object.freeze({
  background: [false],
  truncation: ['disabled'],
});

/** Fields copied as they are: Chat has them under the same name and meaning. */
const SAME_NAME = [
  'temperature',
  'top_p',
  'parallel_tool_calls',
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'service_tier',
] as const;

/** Responses request -> Chat Completions request. */
export function responsesToChatRequest(body: ResponsesRequest): ChatCompletionRequest {
  rejectUntranslatable(body, TRANSLATED, NEUTRAL);
  const messages: ChatMessage[] = [];
  if (body.instructions != null && body.instructions !== '')
    messages.push({ role: 'system', content: body.instructions });
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else appendItems(messages, body.input ?? []);
  const chat: ChatCompletionRequest = { model: body.model, messages };
  if (body.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  if (body.max_output_tokens != null) chat.max_completion_tokens = body.max_output_tokens;
  for (const key of SAME_NAME) if (body[key] != null) (chat as Record<string, unknown>)[key] = body[key];
  if (body.tools !== undefined && body.tools.length > 0) chat.tools = body.tools.map(convertTool);
  if (body.tool_choice !== undefined) chat.tool_choice = convertToolChoice(body.tool_choice);
  applyText(chat, body.text);
  if (body.reasoning?.effort != null) chat.reasoning_effort = body.reasoning.effort;
  return chat;
}

/**
 * Input items in order. A reasoning item this gateway wrote (reasoning.ts) gives
 * its thinking blocks to the assistant turn that follows it; other reasoning items are the
 * upstream's own earlier thoughts, with no place in Chat.
 */
function appendItems(messages: ChatMessage[], items: ResponsesInputItem[]): void {
  let thinking: ChatThinkingBlock[] | null = null;
  items.forEach((item, index) => {
    if (item.type === 'reasoning') {
      thinking = thinkingBlocksOfItem(item as { encrypted_content?: unknown });
      return;
    }
    appendItem(messages, item, index);
    const last = messages.at(-1);
    if (thinking !== null && last?.role === 'assistant' && last.thinking_blocks == null) {
      last.thinking_blocks = thinking;
    }
    thinking = null;
  });
}

function appendItem(messages: ChatMessage[], item: ResponsesInputItem, index: number): void {
  const type = item.type ?? 'message';
  if (type === 'message') messages.push(convertMessage(item as ResponsesMessageItem, index));
  else if (type === 'function_call') appendFunctionCall(messages, item as ResponsesFunctionCallItem);
  else if (type === 'function_call_output') {
    const output = (item as { call_id: string; output: string | ResponsesContentPart[] }).output;
    messages.push({
      role: 'tool',
      tool_call_id: (item as { call_id: string }).call_id,
      content: typeof output === 'string' ? output : output.map((part) => partText(part, index)).join(''),
    });
  } else {
    throw unsupportedParameter(
      `input[${index}]`,
      `Input items of type '${type}' are not supported by this model.`,
    );
  }
}

function convertMessage(item: ResponsesMessageItem, index: number): ChatMessage {
  const role = item.role === 'developer' ? 'system' : item.role;
  if (typeof item.content === 'string') return { role, content: item.content } as ChatMessage;
  if (role === 'user') return { role, content: item.content.map((part) => userPart(part, index)) };
  const text = item.content.map((part) => partText(part, index)).join('');
  return { role, content: text } as ChatMessage;
}

function userPart(part: ResponsesContentPart, index: number): ChatContentPart {
  if (part.type === 'input_image') {
    if (part.image_url == null) {
      throw unsupportedParameter(`input[${index}].content`, 'Images must be given by URL for this model.');
    }
    const imageUrl: { url: string; detail?: 'auto' | 'low' | 'high' } = { url: part.image_url };
    if (part.detail !== undefined) imageUrl.detail = part.detail;
    return { type: 'image_url', image_url: imageUrl };
  }
  return { type: 'text', text: partText(part, index) };
}

function partText(part: ResponsesContentPart, index: number): string {
  if (part.type === 'input_text' || part.type === 'output_text') return part.text;
  if (part.type === 'refusal') return part.refusal;
  throw unsupportedParameter(
    `input[${index}].content`,
    `Content parts of type '${part.type}' are not supported by this model.`,
  );
}

/** Consecutive function calls are one assistant turn with several tool_calls in Chat. */
function appendFunctionCall(messages: ChatMessage[], item: ResponsesFunctionCallItem): void {
  const call = {
    id: item.call_id,
    type: 'function' as const,
    function: { name: item.name, arguments: item.arguments },
  };
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    last.tool_calls = [...(last.tool_calls ?? []), call];
    if (last.content === '') last.content = null;
    return;
  }
  messages.push({ role: 'assistant', content: null, tool_calls: [call] });
}

function convertTool(tool: NonNullable<ResponsesRequest['tools']>[number], index: number): ChatFunctionTool {
  if (tool.type !== 'function') {
    throw unsupportedParameter(
      `tools[${index}]`,
      `Tools of type '${tool.type}' are not supported by this model.`,
    );
  }
  const { name, description, parameters, strict } = tool as {
    name: string;
    description?: string | null;
    parameters?: Record<string, unknown> | null;
    strict?: boolean | null;
  };
  const fn: ChatFunctionTool['function'] = { name };
  if (description != null) fn.description = description;
  if (parameters != null) fn.parameters = parameters;
  if (strict != null) fn.strict = strict;
  return { type: 'function', function: fn };
}

function convertToolChoice(choice: NonNullable<ResponsesRequest['tool_choice']>): ChatToolChoice {
  if (typeof choice === 'string') return choice;
  if (choice.type === 'function' && typeof choice.name === 'string') {
    return { type: 'function', function: { name: choice.name } };
  }
  throw unsupportedParameter('tool_choice');
}

/** `text.format` -> `response_format`; `text.verbosity` has the same name in Chat. */
function applyText(chat: ChatCompletionRequest, text: ResponsesRequest['text']): void {
  if (text == null) return;
  if (text.verbosity != null) chat.verbosity = text.verbosity;
  const format = text.format;
  if (format === undefined || format.type === 'text') return;
  if (format.type === 'json_object') {
    chat.response_format = { type: 'json_object' };
    return;
  }
  const schema: Extract<ChatCompletionRequest['response_format'], { type: 'json_schema' }>['json_schema'] = {
    name: format.name,
    schema: format.schema,
  };
  if (format.strict != null) schema.strict = format.strict;
  if (format.description !== undefined) schema.description = format.description;
  chat.response_format = { type: 'json_schema', json_schema: schema };
}
