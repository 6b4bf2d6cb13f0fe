import type { Operation } from './operation.ts';
import { ByteBoundCounter, CharCountCounter, type TextCounter, TokenCounter } from './token-counter.ts';

/**
 * Pre-call token estimates, for the context-window check and for reserving TPM before the
 * upstream answers (DESIGN.md section 4). They are heuristics that lean high: text is counted
 * with o200k_base (exact for current OpenAI models, close for others), and the parts a tokenizer
 * cannot see get fixed allowances. The settle stage corrects every reservation from the
 * upstream's reported usage, so an estimate only has to be cheap and not far off.
 * Parts with no cheap estimate (audio input, PDF and other files) count 0 here.
 */

/** Per chat message: `<|start|>{role}<|message|>...<|end|>`, per OpenAI's token-counting cookbook (3, +1 for a name). */
const MESSAGE_OVERHEAD_TOKENS = 4;
/** Every reply is primed with `<|start|>assistant<|message|>`. */
const REPLY_PRIMING_TOKENS = 3;
/** OpenAI vision, detail high or auto: 85 base + 170 per 512 px tile, 4 tiles for a 1024x1024 image. */
const OPENAI_IMAGE_TOKENS = 765;
/** OpenAI vision, detail low: the base 85 tokens whatever the size. */
const OPENAI_LOW_DETAIL_IMAGE_TOKENS = 85;
/** Anthropic: (width x height) / 750, at most about 1,600 tokens once resized to 1.15 megapixels. */
const ANTHROPIC_IMAGE_TOKENS = 1_600;

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function arrayOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(counter: TextCounter, value: unknown): number {
  return typeof value === 'string' ? counter.count(value) : 0;
}

function openAiImageTokens(part: Json, imageField: unknown): number {
  const detail = isRecord(imageField) ? imageField.detail : part.detail;
  return detail === 'low' ? OPENAI_LOW_DETAIL_IMAGE_TOKENS : OPENAI_IMAGE_TOKENS;
}

/** Chat Completions and Responses content: a string or an array of typed parts. */
function openAiContent(counter: TextCounter, content: unknown): number {
  if (typeof content === 'string') return counter.count(content);
  let total = 0;
  for (const part of arrayOf(content)) {
    if (!isRecord(part)) continue;
    switch (part.type) {
      case 'text':
      case 'input_text':
      case 'output_text':
        total += text(counter, part.text);
        break;
      case 'refusal':
        total += text(counter, part.refusal);
        break;
      case 'image_url':
        total += openAiImageTokens(part, part.image_url);
        break;
      case 'input_image':
        total += openAiImageTokens(part, undefined);
        break;
    }
  }
  return total;
}

function chatMessage(counter: TextCounter, message: Json): number {
  let total = MESSAGE_OVERHEAD_TOKENS + openAiContent(counter, message.content) + text(counter, message.name);
  for (const call of arrayOf(message.tool_calls)) {
    if (isRecord(call) && isRecord(call.function)) {
      total += text(counter, call.function.name) + text(counter, call.function.arguments);
    }
  }
  return total;
}

/** A json_schema response format is rendered into the prompt like a tool definition. */
function jsonSchemaFormat(counter: TextCounter, format: unknown): number {
  if (!isRecord(format) || format.type !== 'json_schema') return 0;
  return counter.countJson(format.json_schema ?? format.schema);
}

function chatCompletion(counter: TextCounter, body: Json): number {
  let total = REPLY_PRIMING_TOKENS;
  for (const message of arrayOf(body.messages)) {
    if (isRecord(message)) total += chatMessage(counter, message);
  }
  return (
    total +
    counter.countJson(body.tools) +
    counter.countJson(body.functions) +
    jsonSchemaFormat(counter, body.response_format)
  );
}

/** Anthropic content: a string or blocks; tool results nest blocks. */
function anthropicContent(counter: TextCounter, content: unknown): number {
  if (typeof content === 'string') return counter.count(content);
  let total = 0;
  for (const block of arrayOf(content)) {
    if (!isRecord(block)) continue;
    switch (block.type) {
      case 'text':
        total += text(counter, block.text);
        break;
      case 'thinking':
        total += text(counter, block.thinking);
        break;
      case 'image':
        total += ANTHROPIC_IMAGE_TOKENS;
        break;
      case 'tool_use':
        total += text(counter, block.name) + counter.countJson(block.input);
        break;
      case 'tool_result':
        total += anthropicContent(counter, block.content);
        break;
      case 'document':
        if (isRecord(block.source) && block.source.type === 'text') total += text(counter, block.source.data);
        break;
    }
  }
  return total;
}

function anthropicMessages(counter: TextCounter, body: Json): number {
  let total = REPLY_PRIMING_TOKENS + anthropicContent(counter, body.system);
  for (const message of arrayOf(body.messages)) {
    if (isRecord(message)) total += MESSAGE_OVERHEAD_TOKENS + anthropicContent(counter, message.content);
  }
  return total + counter.countJson(body.tools);
}

function responsesItem(counter: TextCounter, item: Json): number {
  switch (item.type) {
    case 'function_call':
      return text(counter, item.name) + text(counter, item.arguments);
    case 'function_call_output':
      return typeof item.output === 'string'
        ? counter.count(item.output)
        : openAiContent(counter, item.output);
    case 'message':
    case undefined:
      return MESSAGE_OVERHEAD_TOKENS + openAiContent(counter, item.content);
    default:
      return 0;
  }
}

function responses(counter: TextCounter, body: Json): number {
  let total = REPLY_PRIMING_TOKENS + text(counter, body.instructions);
  if (typeof body.input === 'string') {
    total += MESSAGE_OVERHEAD_TOKENS + counter.count(body.input);
  } else {
    for (const item of arrayOf(body.input)) {
      if (isRecord(item)) total += responsesItem(counter, item);
    }
  }
  const format = isRecord(body.text) ? body.text.format : undefined;
  return total + counter.countJson(body.tools) + jsonSchemaFormat(counter, format);
}

/** Embeddings input: a string, strings, token ids, or arrays of token ids (each id one token). */
function embeddingsInput(counter: TextCounter, input: unknown): number {
  if (typeof input === 'string') return counter.count(input);
  let total = 0;
  for (const item of arrayOf(input)) {
    if (typeof item === 'string') total += counter.count(item);
    else if (typeof item === 'number') total += 1;
    else if (Array.isArray(item)) total += item.length;
  }
  return total;
}

function countInput(counter: TextCounter, operation: Operation, body: Json): number {
  switch (operation) {
    case 'chat.completions':
      return chatCompletion(counter, body);
    case 'messages':
      return anthropicMessages(counter, body);
    case 'responses':
      return responses(counter, body);
    case 'embeddings':
      return embeddingsInput(counter, body.input);
    case 'images.generations':
    case 'images.edits':
    case 'images.variations':
    case 'audio.transcriptions':
      return text(counter, body.prompt);
  }
}

/**
 * Above this many characters of text (UTF-16 code units, about 1 MiB of ASCII) a request's tokens
 * are estimated from its character count alone, DEFAULT_TOKENS_PER_CHAR per character, without
 * the tokenizer: it is not even loaded. Below it, the tokenizer counts the first 64 Ki characters
 * exactly and extrapolates the rest (token-counter.ts). The settle stage corrects either from the
 * upstream's usage; the upstream judges the context window of a large input it underestimated.
 */
export const LARGE_INPUT_CHARS = 1_048_576;

/**
 * Estimated input tokens of a request in the operation's wire format. Image and audio
 * operations count only their text prompt (their cost is per image or per minute).
 */
export function estimateInputTokens(operation: Operation, body: unknown): number {
  if (!isRecord(body)) return 0;
  const byChars = new CharCountCounter();
  const cheap = countInput(byChars, operation, body);
  return byChars.chars > LARGE_INPUT_CHARS ? cheap : countInput(new TokenCounter(), operation, body);
}

/**
 * The estimate of each input of an embeddings batch, with one counter for the whole batch: the
 * tokenizer's exact budget and the large-input threshold are the request's, not each input's.
 */
export function estimateEachEmbeddingInput(inputs: readonly unknown[]): number[] {
  const byChars = new CharCountCounter();
  const cheap = inputs.map((input) => embeddingsInput(byChars, [input]));
  if (byChars.chars > LARGE_INPUT_CHARS) return cheap;
  const exact = new TokenCounter();
  return inputs.map((input) => embeddingsInput(exact, [input]));
}

/**
 * A bound no estimate exceeds, counted in UTF-8 bytes without the tokenizer: when it fits a
 * context window, so does the input, and the exact count can be skipped.
 */
export function inputTokensUpperBound(operation: Operation, body: unknown): number {
  return isRecord(body) ? countInput(new ByteBoundCounter(), operation, body) : 0;
}

function tokenLimit(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/**
 * The output tokens a request asks for at most (`max_completion_tokens` or `max_tokens` in
 * Chat Completions, `max_tokens` in Messages, `max_output_tokens` in Responses), or null when it
 * sets none or the operation has none.
 */
export function requestedOutputTokens(operation: Operation, body: unknown): number | null {
  if (!isRecord(body)) return null;
  switch (operation) {
    case 'chat.completions':
      return tokenLimit(body.max_completion_tokens) ?? tokenLimit(body.max_tokens);
    case 'messages':
      return tokenLimit(body.max_tokens);
    case 'responses':
      return tokenLimit(body.max_output_tokens);
    default:
      return null;
  }
}

/**
 * Tokens of generated text (what a stream delivered, when its upstream reported no usage), with
 * the same counter as the input estimates: exact up to its character budget, extrapolated beyond.
 */
export function countOutputTokens(text: string): number {
  return new TokenCounter().count(text);
}
