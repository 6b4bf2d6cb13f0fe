import { text } from 'node:stream/consumers';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { mayUseModel, type Principal } from '../../auth/principal.ts';
import { estimateInputTokens } from '../../catalog/estimate-tokens.ts';
import type { DeploymentDirectory } from '../../deployments/deployment-directory.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { ROUTING_HEADERS } from '../../pipeline/pipeline.ts';
import { getProviderAdapter } from '../../providers/registry.ts';
import { upstreamTimeouts } from '../../router/attempt-runner.ts';
import type { RouterSettings } from '../../router/router-settings-schema.ts';
import { toGatewayError } from '../../server/error-response.ts';
import { INFERENCE_SECURITY, type OpenApiRegistry } from '../../server/openapi.ts';
import { credentialSecrets } from '../../telemetry/scrub-secrets.ts';
import type { UpstreamClient } from '../../upstream/upstream-client.ts';
import {
  httpFailure,
  parseUpstreamBody,
  scrubbedFailure,
  transportFailure,
} from '../../upstream/upstream-failure.ts';
import { forwardedHeaders } from './inference-route.ts';

export const countTokensBody = z
  .looseObject({
    model: z.string().min(1, 'model is required'),
    messages: z.array(z.looseObject({ role: z.string() })).min(1, 'messages must have at least one message'),
  })
  .meta({
    id: 'CountTokensRequest',
    description: 'Anthropic count-tokens request: a Messages body without `max_tokens`.',
  });

const countTokensAnswer = z.object({ input_tokens: z.number().int() }).meta({ id: 'CountTokensAnswer' });

/** `x-switchyard-token-count`: who counted. */
export const TOKEN_COUNT_HEADER = 'x-switchyard-token-count';

export interface CountTokensDeps {
  directory: Pick<DeploymentDirectory, 'deploymentsOf' | 'targetOf'>;
  client: UpstreamClient;
  settings: { current(): RouterSettings };
}

interface TokenCount {
  inputTokens: number;
  source: 'provider' | 'estimate';
  deploymentId?: string;
}

/**
 * Counts a Messages body's input tokens for `principal` (docs/api.md, Token counting): the first
 * enabled deployment of the model whose provider counts tokens itself answers (Anthropic's
 * endpoint, passed through; Bedrock's CountTokens for Claude models); a model with none gets the gateway's estimate (catalog/estimate-tokens.ts).
 * Nothing is billed, rate-limited or recorded: no model output is produced.
 */
export async function countTokens(
  deps: CountTokensDeps,
  principal: Principal,
  body: z.infer<typeof countTokensBody>,
  clientHeaders: Readonly<Record<string, string>>,
): Promise<TokenCount> {
  if (!mayUseModel(principal, body.model)) throw new GatewayError('model_not_allowed', { param: 'model' });
  const deployments = deps.directory.deploymentsOf(body.model).filter((deployment) => deployment.enabled);
  if (deployments.length === 0) throw new GatewayError('model_not_found', { param: 'model' });
  const counting = deployments.find((deployment) => {
    const counter = getProviderAdapter(deployment.provider)?.countTokens;
    return counter !== undefined && (counter.supports?.(deployment.upstreamModel) ?? true);
  });
  if (counting === undefined) {
    return { inputTokens: estimateInputTokens('messages', body), source: 'estimate' };
  }
  const provider = getProviderAdapter(counting.provider)!;
  const adapter = provider.countTokens!;
  const target = deps.directory.targetOf(counting);
  const settings = deps.settings.current();
  const signal = AbortSignal.timeout(settings.timeouts.totalMs);
  const built = adapter.buildRequest({ target, body, clientHeaders });
  try {
    const request = provider.authorize === undefined ? built : await provider.authorize(built, target);
    const response = await deps.client.send(request, signal, upstreamTimeouts(settings));
    const answer = parseUpstreamBody(await text(response.body));
    if (response.status < 200 || response.status >= 300) {
      const failure = httpFailure(provider, response.status, answer, response.headers);
      throw scrubbedFailure(failure, credentialSecrets(target.apiKey));
    }
    const inputTokens = adapter.parseResponse(answer, target);
    return { inputTokens, source: 'provider', deploymentId: counting.id };
  } catch (error) {
    // The signal is the call's own deadline (the client's going away does not cancel a count).
    if (signal.aborted) throw new GatewayError('timeout', { detail: { reason: 'token count timed out' } });
    throw transportFailure(error, signal);
  }
}

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
