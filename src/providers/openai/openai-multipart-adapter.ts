import type { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.ts';
import { rewriteMultipartModel } from '../shared/multipart-model-rewrite.ts';
import { malformedAnswerError } from '../shared/upstream-error.ts';
import type { OperationAdapter, UpstreamRequest, Usage } from '../types.ts';
import type { OpenAIEndpoint } from './openai-endpoint.ts';

export interface OpenAIMultipartOperation<Answer> {
  path: string;
  answer: z.ZodType<Answer>;
  usageOf(answer: Answer): Usage | null;
  /**
   * True when a 2xx answer may be plain text rather than JSON (transcriptions with
   * `response_format` text, srt or vtt): the text is then the answer, as the upstream sent it.
   */
  textAnswers: boolean;
}

/**
 * The adapter for multipart operations (image edits and variations, transcriptions): the client's
 * multipart stream is passed through, with the value of its `model` part replaced on the fly by
 * the upstream model (see multipart-model-rewrite.ts); nothing else inside it is read or kept.
 */
export function openAIMultipartAdapter<Answer>(
  endpoint: OpenAIEndpoint,
  operation: OpenAIMultipartOperation<Answer>,
): OperationAdapter<unknown, Answer | string> {
  return {
    buildRequest({ target, multipart }): UpstreamRequest {
      if (multipart === undefined) {
        throw new GatewayError('internal_error', {
          detail: { reason: `${operation.path} needs a multipart body` },
        });
      }
      const body = rewriteMultipartModel(multipart, target.upstreamModel);
      return {
        url: endpoint.url(target, operation.path),
        method: 'POST',
        headers: {
          ...endpoint.headers(target),
          'content-type': body.contentType,
          accept: 'application/json',
        },
        body,
      };
    },
    parseResponse(body, target) {
      if (operation.textAnswers && typeof body === 'string') return body;
      const parsed = operation.answer.safeParse(body);
      if (!parsed.success) throw malformedAnswerError(target.provider, operation.path, parsed.error.issues);
      // The upstream's own object (validated), not zod's copy: field order and unknown fields are kept.
      return body as Answer;
    },
    usageOf: (answer) => (typeof answer === 'string' ? null : operation.usageOf(answer)),
  };
}
