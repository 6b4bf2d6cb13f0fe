/**
 * What becomes of each Chat Completions request field on Gemini, as data (the rules: see
 * chat-parameter-map.ts). `set` fields go to `generationConfig` (API reference: GenerationConfig).
 */
import type { ChatCompletionRequest, ChatResponseFormat } from '../shared/chat-completions-wire.ts';
import {
  handled,
  isEmptyObject,
  isTextOnly,
  mapChatParameters,
  OPENAI_ONLY_CHAT_PARAMETERS,
  type ParameterRule,
  setField,
  stopSequences,
  unless,
  unsupportedChatParameter,
} from '../shared/chat-parameter-map.ts';
import { convertJsonSchemaToGeminiSchema } from './convert-json-schema-to-gemini-schema.ts';
import type { GeminiGenerationConfig } from './gemini-wire-types.ts';

const to = (field: keyof GeminiGenerationConfig, convert?: (value: unknown) => unknown) =>
  setField<GeminiGenerationConfig>(field, convert);

/**
 * reasoning_effort as thinking budgets, the mapping Google documents for its own OpenAI-compatible
 * endpoint (Gemini API, "OpenAI compatibility": low 1K, medium 8K, high 24K tokens; none disables).
 */
export const GEMINI_THINKING_BUDGETS: Readonly<Record<string, number>> = Object.freeze({
  none: 0,
  minimal: 1024,
  low: 1024,
  medium: 8192,
  high: 24576,
});

/** json_object -> JSON mode; json_schema -> JSON mode constrained by the converted schema. */
function responseFormat(value: unknown, name: string): GeminiGenerationConfig {
  const format = value as ChatResponseFormat;
  if (format.type === 'text') return {};
  if (format.type === 'json_object') return { responseMimeType: 'application/json' };
  if (format.type === 'json_schema') {
    const schema = format.json_schema.schema;
    return schema
      ? { responseMimeType: 'application/json', responseSchema: convertJsonSchemaToGeminiSchema(schema) }
      : { responseMimeType: 'application/json' };
  }
  throw unsupportedChatParameter(name);
}

function thinkingBudget(value: unknown, name: string): GeminiGenerationConfig {
  if (typeof value !== 'string' || !Object.hasOwn(GEMINI_THINKING_BUDGETS, value))
    throw unsupportedChatParameter(name);
  return { thinkingConfig: { thinkingBudget: GEMINI_THINKING_BUDGETS[value] } };
}

export const GEMINI_CHAT_PARAMETERS = Object.freeze({
  model: handled,
  messages: handled,
  stream: handled,
  stream_options: handled,
  tools: handled,
  tool_choice: handled,
  max_tokens: to('maxOutputTokens'),
  // Listed after max_tokens so it wins when both are sent (max_tokens is the deprecated name).
  max_completion_tokens: to('maxOutputTokens'),
  temperature: to('temperature'),
  top_p: to('topP'),
  top_k: to('topK'),
  n: to('candidateCount'),
  presence_penalty: to('presencePenalty'),
  frequency_penalty: to('frequencyPenalty'),
  seed: to('seed'),
  stop: to('stopSequences', stopSequences),
  response_format: { kind: 'set', apply: responseFormat },
  reasoning_effort: { kind: 'set', apply: thinkingBudget },
  logprobs: unless((value) => value === false),
  top_logprobs: unless((value) => value === 0),
  logit_bias: unless(isEmptyObject),
  parallel_tool_calls: unless((value) => value === true),
  modalities: unless(isTextOnly),
  ...OPENAI_ONLY_CHAT_PARAMETERS,
} satisfies Record<string, ParameterRule<GeminiGenerationConfig>>);

/** Applies the table: returns the generation config, or throws on a field Gemini cannot take. */
export function mapGenerationConfig(body: ChatCompletionRequest): GeminiGenerationConfig {
  return mapChatParameters<GeminiGenerationConfig>(body, GEMINI_CHAT_PARAMETERS);
}
