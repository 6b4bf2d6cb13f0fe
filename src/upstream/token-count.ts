import { credentialSecrets } from '../diagnostics/scrub-secrets.ts';
import type { DeploymentTarget, ProviderAdapter, TokenCountAdapter } from '../providers/types.ts';
import { readAnswerText } from './read-answer.ts';
import type { UpstreamClient, UpstreamResponse, UpstreamTimeouts } from './upstream-client.ts';
import { httpFailure, parseUpstreamBody, scrubbedFailure, transportFailure } from './upstream-failure.ts';

export interface TokenCountInput {
  target: DeploymentTarget;
  provider: ProviderAdapter;
  counter: TokenCountAdapter;
  /** The client's Messages body. */
  body: Record<string, unknown>;
  clientHeaders: Readonly<Record<string, string>>;
  signal: AbortSignal;
  timeouts: UpstreamTimeouts;
}

/**
 * One token-count request to a provider that counts tokens itself (Anthropic's count_tokens,
 * Bedrock's CountTokens): built by the provider's adapter, sent, read within the answer bound and
 * classified like an attempt (attempt.ts). Throws the classified failure, with the deployment's
 * credential scrubbed from anything the upstream echoed.
 */
export async function countUpstreamTokens(client: UpstreamClient, input: TokenCountInput): Promise<number> {
  const request = input.counter.buildRequest({
    target: input.target,
    body: input.body,
    clientHeaders: input.clientHeaders,
  });
  let response: UpstreamResponse;
  try {
    response = await client.send(request, input.signal, input.timeouts);
  } catch (error) {
    throw transportFailure(error, input.signal);
  }
  const answer = parseUpstreamBody(await readAnswerText(response, input.signal, client.maxAnswerBytes));
  if (response.status < 200 || response.status >= 300) {
    const failure = httpFailure(input.provider, response.status, answer, response.headers);
    throw scrubbedFailure(failure, credentialSecrets(input.target.apiKey));
  }
  return input.counter.parseResponse(answer, input.target);
}
