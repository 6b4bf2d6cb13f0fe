/**
 * Where a Vertex AI deployment is called (Vertex AI REST reference, `projects.locations.publishers.models`):
 * `https://{region}-aiplatform.googleapis.com/v1/projects/{project}/locations/{region}/publishers/{publisher}/models/{model}:{method}`,
 * or `https://aiplatform.googleapis.com/...` for the `global` location. Gemini models are Google's
 * (`generateContent`, `streamGenerateContent`); Claude models are Anthropic's (`rawPredict`,
 * `streamRawPredict`).
 */
import { z } from 'zod';
import { joinUrl } from '../shared/join-url.ts';
import type { CredentialFacts, CredentialSource, DeploymentTarget } from '../types.ts';

/** `providerOptions` of a `vertex` deployment. */
export const vertexProviderOptionsSchema = z.object({
  // Google Cloud project ids: 6 to 30 lowercase letters, digits and hyphens, starting with a letter.
  project: z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, 'a Google Cloud project id'),
  region: z.string().regex(/^[a-z0-9-]+$/, 'a Vertex AI location such as us-central1, or global'),
});

/** The OAuth scope Vertex AI takes (Vertex AI, "Authenticate to Vertex AI"). */
export const VERTEX_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** The `anthropic_version` of a Claude body on Vertex AI (Claude on Vertex AI: "Making requests"). */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

export function isVertexClaude(upstreamModel: string): boolean {
  return upstreamModel.startsWith('claude-');
}

export function vertexCredentialSource({ hasApiKey }: CredentialFacts): CredentialSource {
  return hasApiKey ? 'google-service-account' : 'google-default';
}

/**
 * The model method's URL; `baseUrl` replaces the regional host (Private Service Connect, tests).
 * `model` names another model of the deployment's publisher (Claude's `count-tokens`).
 */
export function vertexModelUrl(
  target: DeploymentTarget,
  method: string,
  model = target.upstreamModel,
): string {
  const { project, region } = vertexProviderOptionsSchema.parse(target.providerOptions);
  const host =
    target.baseUrl ??
    (region === 'global'
      ? 'https://aiplatform.googleapis.com'
      : `https://${region}-aiplatform.googleapis.com`);
  const publisher = isVertexClaude(target.upstreamModel) ? 'anthropic' : 'google';
  return joinUrl(
    host,
    `/v1/projects/${project}/locations/${region}/publishers/${publisher}/models/${encodeURIComponent(model)}:${method}`,
  );
}
