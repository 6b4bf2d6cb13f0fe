import { isRecord, type Json } from './json.ts';
import type { TextCounter } from './token-counter.ts';

/**
 * Pre-call token estimates, for the context-window check and for reserving TPM before the
 * upstream answers (DESIGN.md section 4). They are heuristics that lean high: text is counted
 * with o200k_base (exact for current OpenAI models, close for others), and the parts a tokenizer
 * cannot see get fixed allowances. The settle stage corrects every reservation from the
 * upstream's reported usage, so an estimate only has to be cheap and not far off.
 * Parts with no cheap estimate (audio input, PDF and other files) count 0 here.
 *
 * One counting function per wire format; formats/operation-spec.ts says which counts each
 * operation, and formats/estimate-tokens.ts runs it with the counter the size calls for.
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

function arrayOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

export function text(counter: TextCounter, value: unknown): number {
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

export function chatCompletion(counter: TextCounter, body: Json): number {
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

export function anthropicMessages(counter: TextCounter, body: Json): number {
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

export function responses(counter: TextCounter, body: Json): number {
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
export function embeddingsInput(counter: TextCounter, input: unknown): number {
  if (typeof input === 'string') return counter.count(input);
  let total = 0;
  for (const item of arrayOf(input)) {
    if (typeof item === 'string') total += counter.count(item);
    else if (typeof item === 'number') total += 1;
    else if (Array.isArray(item)) total += item.length;
  }
  return total;
}
