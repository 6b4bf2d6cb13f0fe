import type { Deployment } from '../../deployments/deployment.ts';
import { getProviderAdapter } from '../../providers/registry.ts';

/** Claude's long context window, turned on by the `context-1m-*` beta (Anthropic, "Context windows"). */
export const LONG_CONTEXT_WINDOW = 1_000_000;
const LONG_CONTEXT_BETA = 'context-1m-';

/**
 * The window a Claude deployment is held to: its catalog window, or Claude's 1M window when the
 * call or the deployment (`providerOptions.betas`) sends a `context-1m-*` beta and the provider
 * passes betas on to Claude (Anthropic, Bedrock). Anthropic judges whether the model has the long
 * window; the gateway's pre-flight check must not refuse what Anthropic would serve.
 */
export function contextWindowWithBetas(
  deployment: Deployment,
  window: number,
  clientHeaders: Readonly<Record<string, string>> | undefined,
): number {
  if (window >= LONG_CONTEXT_WINDOW || !deployment.upstreamModel.includes('claude')) return window;
  const forwards = getProviderAdapter(deployment.provider)?.forwardedClientHeaders?.includes(
    'anthropic-beta',
  );
  if (forwards !== true) return window;
  const betas = [
    ...(clientHeaders?.['anthropic-beta'] ?? '').split(','),
    ...(Array.isArray(deployment.providerOptions.betas) ? deployment.providerOptions.betas : []),
  ];
  const long = betas.some((beta) => typeof beta === 'string' && beta.trim().startsWith(LONG_CONTEXT_BETA));
  return long ? LONG_CONTEXT_WINDOW : window;
}
