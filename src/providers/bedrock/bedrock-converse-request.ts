import type { ChatCompletionRequest } from '../../formats/chat-completions/wire.ts';
import { unsupportedParameter } from '../shared/unsupported-parameter.ts';
import { mapInferenceConfig } from './bedrock-chat-parameters.ts';
import { withResponseFormat } from './bedrock-output-format.ts';
import { withStopSequenceField } from './bedrock-stop-sequence.ts';
import { bedrockThinking } from './bedrock-thinking.ts';
import { convertToBedrockToolConfig, isClaudeModel } from './bedrock-tool-config.ts';
import type { BedrockConverseRequest } from './bedrock-wire-types.ts';
import { convertToBedrockMessages } from './convert-to-bedrock-messages.ts';

/**
 * `top_k` has no InferenceConfiguration field: Claude takes it as its own `top_k` through
 * `additionalModelRequestFields` (the Converse reference's own example); other models refuse it.
 * Claude refuses it while thinking, so it is left out then, as `temperature` is.
 */
function topK(body: ChatCompletionRequest, thinking: boolean): { top_k?: unknown } {
  if (body.top_k === undefined || body.top_k === null) return {};
  if (!isClaudeModel(body.model))
    throw unsupportedParameter('top_k', 'top_k is supported on Bedrock for Claude models only.');
  return thinking ? {} : { top_k: body.top_k };
}

/** A Chat Completions request as a Converse / ConverseStream body (the model id travels in the path). */
export function toConverseRequest(body: ChatCompletionRequest): BedrockConverseRequest {
  const { thinking, inferenceConfig } = bedrockThinking(body, mapInferenceConfig(body));
  const { system, messages } = convertToBedrockMessages(body.messages);
  const { toolConfig, additionalModelRequestFields } = convertToBedrockToolConfig(body, messages);
  const additional = {
    ...additionalModelRequestFields,
    ...topK(body, thinking !== undefined),
    ...(thinking ? { thinking } : {}),
  };
  return withResponseFormat(
    body,
    withStopSequenceField({
      messages,
      ...(system.length > 0 ? { system } : {}),
      ...(Object.keys(inferenceConfig).length > 0 ? { inferenceConfig } : {}),
      ...(toolConfig ? { toolConfig } : {}),
      ...(Object.keys(additional).length > 0 ? { additionalModelRequestFields: additional } : {}),
    }),
  );
}
