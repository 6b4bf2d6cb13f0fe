import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { messagesBody } from '../../formats/messages/body-schema.ts';
import { ROUTING_HEADERS } from '../../pipeline/pipeline.ts';
import { type CountTokensDeps, countTokens } from '../../router/count-tokens.ts';
import { toGatewayError } from '../../server/error-response.ts';
import { INFERENCE_SECURITY, type OpenApiRegistry } from '../../server/openapi.ts';
import { forwardedHeaders } from './inference-route.ts';

/**
 * Checked as a Messages body is (but for `max_tokens`): a provider that counts a translation of
 * it (Gemini) must get a body the translator can read, and a malformed one is the client's 400.
 */
export const countTokensBody = messagesBody.omit({ max_tokens: true, stream: true }).meta({
  id: 'CountTokensRequest',
  description: 'Anthropic count-tokens request: a Messages body without `max_tokens`.',
});

const countTokensAnswer = z.object({ input_tokens: z.number().int() }).meta({ id: 'CountTokensAnswer' });

/** `x-switchyard-token-count`: who counted. */
export const TOKEN_COUNT_HEADER = 'x-switchyard-token-count';

/** `POST /v1/messages/count_tokens` (Anthropic format; errors in the Anthropic shape). */
export function registerCountTokensRoute(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  deps: CountTokensDeps,
): void {
  scope.post('/messages/count_tokens', async (request, reply) => {
    const parsed = countTokensBody.safeParse(request.body);
    // A GatewayError, not the ZodError: the error handler takes any other error after the body
    // was read for a client that left (app.ts clientLeft).
    if (!parsed.success) throw toGatewayError(parsed.error);
    const body = parsed.data;
    const count = await countTokens(deps, request.principal, body, forwardedHeaders(request));
    reply.header(TOKEN_COUNT_HEADER, count.source);
    if (count.deploymentId !== undefined) reply.header(ROUTING_HEADERS.deployment, count.deploymentId);
    return { input_tokens: count.inputTokens };
  });
  docs.add({
    method: 'post',
    path: '/v1/messages/count_tokens',
    operation: {
      summary: 'Count the input tokens of a Messages request (Anthropic format; not billed)',
      tags: ['inference'],
      security: INFERENCE_SECURITY,
      requestBody: { required: true, content: { 'application/json': { schema: countTokensBody } } },
      responses: {
        200: {
          description: `The input tokens; \`${TOKEN_COUNT_HEADER}\` says whether the provider counted them or the gateway estimated them.`,
          content: { 'application/json': { schema: countTokensAnswer } },
        },
        default: { description: 'An error in the Anthropic shape.' },
      },
    },
  });
}
