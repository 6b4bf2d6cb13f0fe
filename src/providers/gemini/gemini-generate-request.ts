import type { ChatCompletionRequest } from '../../formats/chat-completions/wire.ts';
import { convertToGeminiContents } from './convert-to-gemini-contents.ts';
import { mapGenerationConfig } from './gemini-chat-parameters.ts';
import { geminiThinkingConfig } from './gemini-thinking.ts';
import { convertToGeminiTools } from './gemini-tools.ts';
import type { GeminiGenerateContentRequest } from './gemini-wire-types.ts';

/** A Chat Completions request as a generateContent / streamGenerateContent body (the model is in the path). */
export function toGenerateContentRequest(body: ChatCompletionRequest): GeminiGenerateContentRequest {
  const thinkingConfig = geminiThinkingConfig(body);
  const generationConfig = { ...mapGenerationConfig(body), ...(thinkingConfig ? { thinkingConfig } : {}) };
  return {
    ...convertToGeminiContents(body.messages),
    ...convertToGeminiTools(body),
    ...(Object.keys(generationConfig).length > 0 ? { generationConfig } : {}),
  };
}
