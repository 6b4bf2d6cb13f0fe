/**
 * What becomes of each Chat Completions request field on Gemini, as data (the rules: see
 * chat-parameter-map.ts). `set` fields go to `generationConfig` (API reference: GenerationConfig).
 */
import type { ChatCompletionRequest, ChatResponseFormat } from '../../formats/chat-completions/wire.ts';
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
  // Needs the model: see gemini-thinking.ts.
  reasoning_effort: handled,
  logprobs: to('responseLogprobs'),
  top_logprobs: to('logprobs'),
  logit_bias: unless(isEmptyObject),
  // No Gemini switch: `false` is enforced on the answer (see gemini-chat-response.ts).
  parallel_tool_calls: handled,
  modalities: unless(isTextOnly),
  ...OPENAI_ONLY_CHAT_PARAMETERS,
} satisfies Record<string, ParameterRule<GeminiGenerationConfig>>);

/** Applies the table: returns the generation config, or throws on a field Gemini cannot take. */
export function mapGenerationConfig(body: ChatCompletionRequest): GeminiGenerationConfig {
  return mapChatParameters<GeminiGenerationConfig>(body, GEMINI_CHAT_PARAMETERS);
}
