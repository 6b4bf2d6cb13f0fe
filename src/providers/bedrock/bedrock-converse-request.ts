import type { ChatCompletionRequest } from '../shared/chat-completions-wire.ts';
import { mapInferenceConfig } from './bedrock-chat-parameters.ts';
import { withResponseFormat } from './bedrock-output-format.ts';
import { bedrockThinking } from './bedrock-thinking.ts';
import { convertToBedrockToolConfig } from './bedrock-tool-config.ts';
import type { BedrockConverseRequest } from './bedrock-wire-types.ts';
import { convertToBedrockMessages } from './convert-to-bedrock-messages.ts';

/** A Chat Completions request as a Converse / ConverseStream body (the model id travels in the path). */
export function toConverseRequest(body: ChatCompletionRequest): BedrockConverseRequest {
  const { thinking, inferenceConfig } = bedrockThinking(body, mapInferenceConfig(body));
  const { system, messages } = convertToBedrockMessages(body.messages);
  const { toolConfig, additionalModelRequestFields } = convertToBedrockToolConfig(body, messages);
  const additional = { ...additionalModelRequestFields, ...(thinking ? { thinking } : {}) };
  return withResponseFormat(body, {
    messages,
    ...(system.length > 0 ? { system } : {}),
    ...(Object.keys(inferenceConfig).length > 0 ? { inferenceConfig } : {}),
    ...(toolConfig ? { toolConfig } : {}),
    ...(Object.keys(additional).length > 0 ? { additionalModelRequestFields: additional } : {}),
  });
}
