/**
 * Gemini's own token count (Gemini API reference, "Counting tokens": `POST
 * models/{model}:countTokens`, `{ generateContentRequest }` in, `{ totalTokens }` out) for a
 * Messages body: the body goes through the same translation as a call (Messages -> Chat ->
 * generateContent), so the count is Gemini's own for what the call would send, system
 * instruction and tools included.
 */
import { z } from 'zod';
import type { AnthropicMessagesRequest } from '../../formats/messages/wire.ts';
import { malformedAnswerError } from '../shared/upstream-error.ts';
import { messagesViaChat } from '../translate/messages-via-chat/translator.ts';
import type { TokenCountAdapter } from '../types.ts';
import { geminiHeaders, geminiModelName, geminiUrl } from './gemini-config.ts';
import { toGenerateContentRequest } from './gemini-generate-request.ts';

const countTokensAnswerSchema = z.looseObject({ totalTokens: z.number().int().nonnegative() });

/** count_tokens bodies carry no `max_tokens`; the count does not depend on it. */
const COUNT_MAX_TOKENS = 1;

export const geminiCountTokens: TokenCountAdapter = {
  buildRequest({ target, body }) {
    const messages = { max_tokens: COUNT_MAX_TOKENS, ...body, model: target.upstreamModel };
    const chat = messagesViaChat.request(messages as AnthropicMessagesRequest);
    const { generationConfig: _generation, ...generate } = toGenerateContentRequest(chat);
    const payload = { generateContentRequest: { model: geminiModelName(target.upstreamModel), ...generate } };
    return {
      url: geminiUrl(target, 'countTokens'),
      method: 'POST',
      headers: geminiHeaders(target, false),
      body: JSON.stringify(payload),
    };
  },
  parseResponse(body, target) {
    const parsed = countTokensAnswerSchema.safeParse(body);
    if (!parsed.success) throw malformedAnswerError(target.provider, 'token count', parsed.error.issues);
    return parsed.data.totalTokens;
  },
};
