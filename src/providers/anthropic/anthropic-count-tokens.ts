import { z } from 'zod';
import { malformedAnswerError } from '../shared/upstream-error.ts';
import type { TokenCountAdapter } from '../types.ts';
import { ANTHROPIC_COUNT_TOKENS_PATH } from './anthropic-config.ts';
import { anthropicHeaders, anthropicMessagesUrl } from './anthropic-messages.ts';

/** API reference, "Count tokens in a message": the answer. */
const countTokensAnswerSchema = z.looseObject({ input_tokens: z.number().int().nonnegative() });

/**
 * `POST /v1/messages/count_tokens`: the client's body as it is (model renamed), with the same
 * headers as a Messages call, so betas that change the count (tools, PDFs, thinking) apply.
 */
export const anthropicCountTokens: TokenCountAdapter = {
  buildRequest({ target, body, clientHeaders }) {
    return {
      url: anthropicMessagesUrl(target, ANTHROPIC_COUNT_TOKENS_PATH),
      method: 'POST',
      headers: {
        ...anthropicHeaders(target, clientHeaders),
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ ...body, model: target.upstreamModel }),
    };
  },
  parseResponse(body, target) {
    const parsed = countTokensAnswerSchema.safeParse(body);
    if (!parsed.success) throw malformedAnswerError(target.provider, 'token count', parsed.error.issues);
    return parsed.data.input_tokens;
  },
};
