import { credentialSecrets } from '../diagnostics/scrub-secrets.ts';
import type { AbortSource } from '../pipeline/call-signal.ts';
import type { DeploymentTarget, ProviderAdapter, TokenCountAdapter } from '../providers/types.ts';
import { exchange, readAnswerText } from './exchange.ts';
import type { UpstreamClient, UpstreamTimeouts } from './upstream-client.ts';
import { parseUpstreamBody, scrubbedFailure } from './upstream-failure.ts';

export interface TokenCountInput {
  target: DeploymentTarget;
  provider: ProviderAdapter;
  counter: TokenCountAdapter;
  /** The client's Messages body. */
  body: Record<string, unknown>;
  clientHeaders: Readonly<Record<string, string>>;
  signal: AbortSource;
  timeouts: UpstreamTimeouts;
}

/**
 * One token-count request to a provider that counts tokens itself (Anthropic's count_tokens,
 * Bedrock's CountTokens): built by the provider's adapter, sent, read within the answer bound and
 * classified like an attempt (attempt.ts). Throws the classified failure, with the deployment's
 * credential scrubbed from anything the upstream echoed.
 */
export async function countUpstreamTokens(client: UpstreamClient, input: TokenCountInput): Promise<number> {
  const built = input.counter.buildRequest({
    target: input.target,
    body: input.body,
    clientHeaders: input.clientHeaders,
  });
  const authorize = input.provider.authorize;
  try {
    const request = authorize === undefined ? built : await authorize(built, input.target);
    const response = await exchange(client, request, input.signal, input.timeouts, input.provider, true);
    const text = await readAnswerText(response, input.signal, client.maxAnswerBytes);
    return input.counter.parseResponse(parseUpstreamBody(text), input.target);
  } catch (error) {
    throw scrubbedFailure(error, credentialSecrets(input.target.apiKey));
  }
}
