/**
 * Anthropic's Messages API: its URL and the headers every call to it sends (a message, a token
 * count), and the adapter of the `messages` operation.
 */
import { GatewayError } from '../../errors/gateway-error.ts';
import { usageFromAnthropic } from '../../formats/messages/usage.ts';
import {
  type AnthropicMessage,
  type AnthropicMessagesRequest,
  anthropicMessageSchema,
} from '../../formats/messages/wire.ts';
import { joinUrl } from '../shared/join-url.ts';
import { malformedAnswerError } from '../shared/upstream-error.ts';
import type { DeploymentTarget, OperationAdapter } from '../types.ts';
import {
  ANTHROPIC_DEFAULT_BASE_URL,
  ANTHROPIC_MESSAGES_PATH,
  ANTHROPIC_VERSION,
  anthropicProviderOptionsSchema,
} from './anthropic-config.ts';
import { mergedBetas, withClaudeSchemas } from './claude-body.ts';
import { AnthropicStreamDecoder } from './claude-stream-events.ts';

/** `{base}{path}` (base: the deployment's baseUrl or Anthropic's); the Messages path by default. */
export function anthropicMessagesUrl(target: DeploymentTarget, path = ANTHROPIC_MESSAGES_PATH): string {
  return joinUrl(target.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL, path);
}

/**
 * API reference, "Getting started" and "Beta headers": `x-api-key`, `anthropic-version`, optional
 * `anthropic-beta`. The client's `anthropic-version` wins over the gateway's default (the client
 * knows the version it speaks); `anthropic-beta` is the deployment's `providerOptions.betas`
 * followed by the client's betas, each once.
 */
export function anthropicHeaders(
  target: DeploymentTarget,
  clientHeaders: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const headers: Record<string, string> = {
    'anthropic-version': clientHeaders['anthropic-version'] ?? ANTHROPIC_VERSION,
  };
  if (target.apiKey !== null) headers['x-api-key'] = target.apiKey;
  const options = anthropicProviderOptionsSchema.safeParse(target.providerOptions);
  if (!options.success) {
    throw new GatewayError('internal_error', {
      detail: { deployment: target.id, reason: 'invalid providerOptions', issues: options.error.issues },
    });
  }
  const betas = mergedBetas(options.data.betas ?? [], clientHeaders['anthropic-beta']);
  if (betas.length > 0) headers['anthropic-beta'] = betas.join(',');
  return headers;
}

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
  createStreamDecoder: (target, { publicModel, passedOn }) =>
    new AnthropicStreamDecoder(target.provider, publicModel, passedOn === true),
};
