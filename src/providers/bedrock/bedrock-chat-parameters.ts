/**
 * What becomes of each Chat Completions request field on Converse, as data (the rules: see
 * chat-parameter-map.ts). `set` fields go to `inferenceConfig` (Bedrock API Reference:
 * InferenceConfiguration).
 */
import type { ChatCompletionRequest } from '../../formats/chat-completions/wire.ts';
import {
  handled,
  isEmptyObject,
  isTextOnly,
  mapChatParameters,
  never,
  OPENAI_ONLY_CHAT_PARAMETERS,
  type ParameterRule,
  setField,
  stopSequences,
  unless,
} from '../shared/chat-parameter-map.ts';
import type { BedrockInferenceConfig } from './bedrock-wire-types.ts';

const to = (field: keyof BedrockInferenceConfig, convert?: (value: unknown) => unknown) =>
  setField<BedrockInferenceConfig>(field, convert);

export const BEDROCK_CHAT_PARAMETERS = Object.freeze({
  model: handled,
  messages: handled,
  stream: handled,
  stream_options: handled,
  tools: handled,
  tool_choice: handled,
  max_tokens: to('maxTokens'),
  // Listed after max_tokens so it wins when both are sent (max_tokens is the deprecated name).
  max_completion_tokens: to('maxTokens'),
  temperature: to('temperature'),
  top_p: to('topP'),
  stop: to('stopSequences', stopSequences),
  n: unless((value) => value === 1),
  presence_penalty: unless((value) => value === 0),
  frequency_penalty: unless((value) => value === 0),
  logit_bias: unless(isEmptyObject),
  logprobs: unless((value) => value === false),
  top_logprobs: unless((value) => value === 0),
  // No Converse switch: `false` is enforced on the answer (see bedrock-answer-mode.ts).
  parallel_tool_calls: handled,
  // See bedrock-output-format.ts.
  response_format: handled,
  modalities: unless(isTextOnly),
  seed: never,
  // See bedrock-thinking.ts.
  reasoning_effort: handled,
  // Not OpenAI's (the Anthropic translation sends it): Claude's own field, see bedrock-converse-request.ts.
  top_k: handled,
  ...OPENAI_ONLY_CHAT_PARAMETERS,
} satisfies Record<string, ParameterRule<BedrockInferenceConfig>>);

/** Applies the table: returns the inference configuration, or throws on a field Converse cannot take. */
export function mapInferenceConfig(body: ChatCompletionRequest): BedrockInferenceConfig {
  return mapChatParameters<BedrockInferenceConfig>(body, BEDROCK_CHAT_PARAMETERS);
}
