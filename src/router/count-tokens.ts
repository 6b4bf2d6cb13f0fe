import { mayUseModel, type Principal } from '../auth/principal.ts';
import type { DeploymentDirectory } from '../deployments/deployment-directory.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { estimateInputTokens } from '../formats/estimate-tokens.ts';
import { getProviderAdapter } from '../providers/registry.ts';
import { countUpstreamTokens } from '../upstream/token-count.ts';
import type { UpstreamClient } from '../upstream/upstream-client.ts';
import { transportFailure } from '../upstream/upstream-failure.ts';
import { upstreamTimeouts } from './attempt-runner.ts';
import type { RouterSettings } from './router-settings-schema.ts';

export interface CountTokensDeps {
  directory: Pick<DeploymentDirectory, 'deploymentsOf' | 'targetOf'>;
  client: UpstreamClient;
  settings: { current(): RouterSettings };
}

export interface TokenCount {
  inputTokens: number;
  source: 'provider' | 'estimate';
  deploymentId?: string;
}

/**
 * Counts a Messages body's input tokens for `principal` (docs/api.md, Token counting): the first
 * enabled deployment of the model whose provider counts tokens itself answers, through the
 * upstream engine (upstream/token-count.ts); a model with none gets the gateway's estimate
 * (formats/estimate-tokens.ts). Nothing is billed, rate-limited or recorded: no model output is
 * produced.
 */
export async function countTokens(
  deps: CountTokensDeps,
  principal: Principal,
  body: Record<string, unknown> & { model: string },
  clientHeaders: Readonly<Record<string, string>>,
): Promise<TokenCount> {
  if (!mayUseModel(principal, body.model)) throw new GatewayError('model_not_allowed', { param: 'model' });
  const deployments = deps.directory.deploymentsOf(body.model).filter((deployment) => deployment.enabled);
  if (deployments.length === 0) throw new GatewayError('model_not_found', { param: 'model' });
  for (const deployment of deployments) {
    const provider = getProviderAdapter(deployment.provider);
    const counter = provider?.countTokens;
    if (provider === null || counter === undefined) continue;
    if (!(counter.supports?.(deployment.upstreamModel) ?? true)) continue;
    const settings = deps.settings.current();
    // The count's own deadline: the client's going away does not cancel a count.
    const signal = AbortSignal.timeout(settings.timeouts.totalMs);
    try {
      const inputTokens = await countUpstreamTokens(deps.client, {
        target: deps.directory.targetOf(deployment),
        provider,
        counter,
        body,
        clientHeaders,
        signal,
        timeouts: upstreamTimeouts(settings),
      });
      return { inputTokens, source: 'provider', deploymentId: deployment.id };
    } catch (error) {
      if (signal.aborted) throw new GatewayError('timeout', { detail: { reason: 'token count timed out' } });
      throw transportFailure(error, signal);
    }
  }
  return { inputTokens: estimateInputTokens('messages', body), source: 'estimate' };
}
