import type {
  ChatCompletionRequest,
  ChatContentPart,
  ChatMessage,
  ChatThinkingBlock,
} from '../../../formats/chat-completions/wire.ts';
import type {
  ResponsesContentPart,
  ResponsesCustomToolCallItem,
  ResponsesFunctionCallItem,
  ResponsesInputItem,
  ResponsesMessageItem,
  ResponsesRequest,
} from '../../../formats/responses/wire.ts';
import { unsupportedParameter } from '../../shared/unsupported-parameter.ts';
import type { TranslationTarget } from '../../types.ts';
import { withinOutputLimit } from '../shared/output-limit.ts';
import { rejectUntranslatable } from '../shared/unsupported-parameter.ts';
import { thinkingBlocksOfItem } from './reasoning.ts';
import { chatToolName, ResponsesToolSet } from './tools.ts';

/**
 * Fields of a Responses request with a Chat equivalent, and the ones the gateway itself serves
 * (`store`, `metadata`: stored response state, DESIGN.md section 5; `include`: extra output the
 * translation never produces; `reasoning.summary`, `truncation: disabled`: nothing to do;
 * `client_metadata`: the client's own labels for OpenAI's logs (Codex's turn ids), read by no
 * model). `previous_response_id` must have been inlined into `input` by the pipeline before
 * translation.
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
  'top_logprobs',
  'client_metadata',
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
export function responsesToChatRequest(
  body: ResponsesRequest,
  target?: TranslationTarget,
): ChatCompletionRequest {
  rejectUntranslatable(body, TRANSLATED, NEUTRAL);
  const messages: ChatMessage[] = [];
  if (body.instructions != null && body.instructions !== '')
    messages.push({ role: 'system', content: body.instructions });
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else appendItems(messages, body.input ?? []);
  const tools = ResponsesToolSet.of(body);
  const chat: ChatCompletionRequest = { model: body.model, messages };
  if (body.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  if (body.max_output_tokens != null)
    chat.max_completion_tokens = withinOutputLimit(body.max_output_tokens, target);
  for (const key of SAME_NAME) if (body[key] != null) (chat as Record<string, unknown>)[key] = body[key];
  if (body.tool_choice != null) chat.tool_choice = tools.toolChoice(body.tool_choice);
  if (tools.chatTools.length > 0) chat.tools = tools.chatTools;
  else {
    // Every offered tool was left out (tools.ts): Chat refuses these fields without tools.
    delete chat.tool_choice;
    delete chat.parallel_tool_calls;
  }
  applyText(chat, body.text);
  applyLogprobs(chat, body);
  if (body.reasoning?.effort != null) chat.reasoning_effort = body.reasoning.effort;
  return chat;
}

/**
 * Token log probabilities: Responses returns them (`output_text.logprobs`) when `include` asks
 * for `message.output_text.logprobs`, with `top_logprobs` alternatives per token; Chat asks with
 * `logprobs: true` and the same `top_logprobs`. A `top_logprobs` above 0 asks on its own, as it
 * means nothing without them.
 */
function applyLogprobs(chat: ChatCompletionRequest, body: ResponsesRequest): void {
  const top = body.top_logprobs;
  const included = Array.isArray(body.include) && body.include.includes('message.output_text.logprobs');
  if (!included && !(typeof top === 'number' && top > 0)) return;
  chat.logprobs = true;
  if (typeof top === 'number') chat.top_logprobs = top;
}

/**
 * Input items in order. A reasoning item this gateway wrote (reasoning.ts) gives
 * its thinking blocks to the assistant turn that follows it; other reasoning items are the
 * upstream's own earlier thoughts, with no place in Chat.
 */
function appendItems(messages: ChatMessage[], items: ResponsesInputItem[]): void {
  let thinking: ChatThinkingBlock[] | null = null;
  let toolImages: ChatContentPart[] = [];
  items.forEach((item, index) => {
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      const output = item as { call_id: string; output: string | ResponsesContentPart[] };
      toolImages.push(...appendToolOutput(messages, output, index));
      return;
    }
    if (toolImages.length > 0) messages.push({ role: 'user', content: toolImages });
    toolImages = [];
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
  if (toolImages.length > 0) messages.push({ role: 'user', content: toolImages });
}

/**
 * Records of tools OpenAI ran itself (a web search, a tool search): what they found is in the
 * assistant's later text, and a Chat model has no such tool to have called, so they are left out.
 */
const HOSTED_CALL_RECORDS = new Set([
  'web_search_call',
  'file_search_call',
  'tool_search_call',
  'tool_search_output',
  'image_generation_call',
  'code_interpreter_call',
  'mcp_list_tools',
]);

/** One input item other than a reasoning item or a tool output (appendItems takes those). */
function appendItem(messages: ChatMessage[], item: ResponsesInputItem, index: number): void {
  const type = item.type ?? 'message';
  if (type === 'message') messages.push(convertMessage(item as ResponsesMessageItem, index));
  else if (type === 'function_call') {
    const call = item as ResponsesFunctionCallItem;
    appendToolCall(messages, call.call_id, chatToolName(call.name, call.namespace), call.arguments);
  } else if (type === 'custom_tool_call') {
    const call = item as ResponsesCustomToolCallItem;
    const args = JSON.stringify({ input: call.input });
    appendToolCall(messages, call.call_id, chatToolName(call.name, call.namespace), args);
  } else if (!HOSTED_CALL_RECORDS.has(type)) {
    throw unsupportedParameter(
      `input[${index}]`,
      `Input items of type '${type}' are not supported by this model.`,
    );
  }
}

/**
 * A tool's output is a Chat `tool` message with its text. Chat's tool messages hold text only, so
 * images the tool returned (Codex's `view_image`) are returned for a user message after the run
 * of tool messages, where Chat allows one.
 */
function appendToolOutput(
  messages: ChatMessage[],
  item: { call_id: string; output: string | ResponsesContentPart[] },
  index: number,
): ChatContentPart[] {
  if (typeof item.output === 'string') {
    messages.push({ role: 'tool', tool_call_id: item.call_id, content: item.output });
    return [];
  }
  const isImage = (part: ResponsesContentPart) => part.type === 'input_image';
  const text = item.output.filter((part) => !isImage(part)).map((part) => partText(part, index));
  messages.push({ role: 'tool', tool_call_id: item.call_id, content: text.join('') });
  return item.output.filter(isImage).map((part) => userPart(part, index));
}

function convertMessage(item: ResponsesMessageItem, index: number): ChatMessage {
  const role = item.role === 'developer' ? 'system' : item.role;
  if (typeof item.content === 'string') return { role, content: item.content } as ChatMessage;
  if (role === 'user') return { role, content: item.content.map((part) => userPart(part, index)) };
  const text = item.content.map((part) => partText(part, index)).join('');
  return { role, content: text } as ChatMessage;
}

function userPart(part: ResponsesContentPart, index: number): ChatContentPart {
  if (part.type === 'input_file') return filePart(part, index);
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

/**
 * An inline file (`file_data`, a base64 data URL) is Chat's `file` part with the same fields. A
 * `file_id` names a file stored at OpenAI, which another upstream cannot read, and a `file_url`
 * would have the gateway download what a caller points at: both are refused.
 */
function filePart(part: ResponsesContentPart, index: number): ChatContentPart {
  const { file_data: data, filename } = part as { file_data?: unknown; filename?: unknown };
  if (typeof data !== 'string' || data === '') {
    throw unsupportedParameter(
      `input[${index}].content`,
      'Files must be given inline as file_data (a base64 data URL) for this model.',
    );
  }
  return { type: 'file', file: { file_data: data, ...(typeof filename === 'string' ? { filename } : {}) } };
}

function partText(part: ResponsesContentPart, index: number): string {
  if (part.type === 'input_text' || part.type === 'output_text') return part.text;
  if (part.type === 'refusal') return part.refusal;
  throw unsupportedParameter(
    `input[${index}].content`,
    `Content parts of type '${part.type}' are not supported by this model.`,
  );
}

/** Consecutive tool calls are one assistant turn with several tool_calls in Chat. */
function appendToolCall(messages: ChatMessage[], id: string, name: string, args: string): void {
  const call = { id, type: 'function' as const, function: { name, arguments: args } };
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    last.tool_calls = [...(last.tool_calls ?? []), call];
    if (last.content === '') last.content = null;
    return;
  }
  messages.push({ role: 'assistant', content: null, tool_calls: [call] });
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
