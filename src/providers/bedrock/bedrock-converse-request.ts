import type { ChatCompletionRequest } from '../shared/chat-completions-wire.ts';
import { mapInferenceConfig } from './bedrock-chat-parameters.ts';
import { convertToBedrockToolConfig } from './bedrock-tool-config.ts';
import type { BedrockConverseRequest } from './bedrock-wire-types.ts';
import { convertToBedrockMessages } from './convert-to-bedrock-messages.ts';

/** A Chat Completions request as a Converse / ConverseStream body (the model id travels in the path). */
export function toConverseRequest(body: ChatCompletionRequest): BedrockConverseRequest {
  const inferenceConfig = mapInferenceConfig(body);
  const { system, messages } = convertToBedrockMessages(body.messages);
  const toolConfig = convertToBedrockToolConfig(body, messages);
  return {
    messages,
    ...(system.length > 0 ? { system } : {}),
    ...(Object.keys(inferenceConfig).length > 0 ? { inferenceConfig } : {}),
    ...(toolConfig ? { toolConfig } : {}),
  };
}
