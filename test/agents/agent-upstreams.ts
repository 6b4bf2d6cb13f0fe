import {
  ANTHROPIC_UPSTREAM_KEY,
  createDeployment,
  startUpstreams,
  type Upstreams,
} from '../inference/support.ts';

/**
 * The fakes and gateway of support.ts, with the deployments the agent CLIs are pointed at, named
 * after the real model ids (what docs/clients.md advises, so a CLI picks the right limits):
 *   claude-sonnet-4-5           anthropic  claude-sonnet-4-5
 *   bedrock/claude-sonnet-4-5   bedrock    us.anthropic.claude-sonnet-4-5-...  (InvokeModel)
 *   bedrock/nova-pro            bedrock    amazon.nova-pro-v1:0                (Converse)
 */
export async function startAgentUpstreams(): Promise<Upstreams> {
  const up = await startUpstreams();
  const bedrock = { provider: 'bedrock', baseUrl: up.bedrock.baseUrl, apiKey: up.bedrock.apiKey };
  const region = { region: up.bedrock.region };
  await createDeployment(up.gw, {
    publicModel: 'claude-sonnet-4-5',
    provider: 'anthropic',
    upstreamModel: 'claude-sonnet-4-5',
    baseUrl: up.anthropic.url,
    apiKey: ANTHROPIC_UPSTREAM_KEY,
  });
  await createDeployment(up.gw, {
    ...bedrock,
    publicModel: 'bedrock/claude-sonnet-4-5',
    upstreamModel: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    providerOptions: region,
  });
  await createDeployment(up.gw, {
    ...bedrock,
    publicModel: 'bedrock/nova-pro',
    upstreamModel: 'amazon.nova-pro-v1:0',
    providerOptions: region,
  });
  return up;
}
