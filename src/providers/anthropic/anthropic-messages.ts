import { usageFromAnthropic } from '../../formats/messages/usage.ts';
import {
  type AnthropicMessage,
  type AnthropicMessagesRequest,
  anthropicMessageSchema,
} from '../../formats/messages/wire.ts';
import { malformedAnswerError } from '../shared/upstream-error.ts';
import type { OperationAdapter } from '../types.ts';
import { anthropicHeaders, anthropicMessagesUrl } from './anthropic-endpoint.ts';
import { withClaudeSchemas } from './claude-body.ts';
import { AnthropicStreamDecoder } from './claude-stream-events.ts';

/** `POST /v1/messages`: the client's body with the upstream model, its schemas as Claude takes them. */
export const anthropicMessagesAdapter: OperationAdapter<AnthropicMessagesRequest, AnthropicMessage> = {
  buildRequest({ target, body, stream, clientHeaders }) {
    const upstream: Record<string, unknown> = { ...withClaudeSchemas(body), model: target.upstreamModel };
    if (stream) upstream.stream = true;
    return {
      url: anthropicMessagesUrl(target),
      method: 'POST',
      headers: {
        ...anthropicHeaders(target, clientHeaders),
        'content-type': 'application/json',
        accept: stream ? 'text/event-stream' : 'application/json',
      },
      body: JSON.stringify(upstream),
    };
  },
  parseResponse(body, target) {
    const parsed = anthropicMessageSchema.safeParse(body);
    if (!parsed.success) throw malformedAnswerError(target.provider, 'message', parsed.error.issues);
    return body as AnthropicMessage;
  },
  usageOf: (answer) => usageFromAnthropic(answer.usage),
  createStreamDecoder: (target, { publicModel }) => new AnthropicStreamDecoder(target.provider, publicModel),
};
