/**
 * Which credentials sign a Bedrock request, and when. A deployment whose stored key is its
 * credential is signed in `buildRequest`, synchronously, as before; one whose credentials are
 * fetched (the AWS default chain, an assumed role) is signed by the provider's `authorize` step,
 * once the credentials are in hand (types.ts, RequestAuthorizer).
 */
import { GatewayError } from '../../errors/gateway-error.ts';
import type { DeploymentTarget, RequestAuthorizer, UpstreamRequest } from '../types.ts';
import type { AwsCredentialNeed, AwsCredentialSources } from './aws-credentials.ts';
import {
  BEDROCK_SIGNING_SERVICE,
  bedrockCredentialSource,
  bedrockProviderOptionsSchema,
  parseBedrockCredentials,
  resolveBedrockEndpoint,
} from './bedrock-config.ts';
import { signRequest } from './sigv4.ts';

export interface BedrockRequestInput {
  url: string;
  headers: Record<string, string>;
  body: string;
}

function signsWithStoredKey(target: DeploymentTarget): boolean {
  const source = bedrockCredentialSource({
    hasApiKey: target.apiKey !== null,
    providerOptions: target.providerOptions,
  });
  return source === 'static-key';
}

/** The POST to send: signed now with the stored key, or left for `authorize` to sign. */
export function bedrockRequest(
  target: DeploymentTarget,
  input: BedrockRequestInput,
  now: Date,
): UpstreamRequest {
  const headers = signsWithStoredKey(target)
    ? signRequest({
        method: 'POST',
        ...input,
        credentials: parseBedrockCredentials(target.apiKey),
        region: resolveBedrockEndpoint(target).region,
        service: BEDROCK_SIGNING_SERVICE,
        now,
      })
    : input.headers;
  return { url: input.url, method: 'POST', headers, body: input.body };
}

/** Signs the requests `bedrockRequest` left unsigned, with credentials from the chain or a role. */
export function bedrockAuthorizer(sources: AwsCredentialSources, now: () => Date): RequestAuthorizer {
  return async (request, target) => {
    if (signsWithStoredKey(target)) return request;
    const region = resolveBedrockEndpoint(target).region;
    const credentials = await sources.credentialsFor(credentialNeed(target, region));
    const headers = signRequest({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: signableBody(request.body),
      credentials,
      region,
      service: BEDROCK_SIGNING_SERVICE,
      now: now(),
    });
    return { ...request, headers };
  };
}

/** Bedrock bodies are JSON text; anything else is a programming error, not a request to sign. */
function signableBody(body: UpstreamRequest['body']): string | Uint8Array {
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  throw new GatewayError('internal_error', { detail: { reason: 'a Bedrock request without a JSON body' } });
}

function credentialNeed(target: DeploymentTarget, region: string): AwsCredentialNeed {
  // Valid: the deployment was checked when saved, and resolveBedrockEndpoint has just parsed them.
  const { roleArn, externalId } = bedrockProviderOptionsSchema.parse(target.providerOptions);
  return {
    deploymentId: target.id,
    apiKey: target.apiKey === null ? null : parseBedrockCredentials(target.apiKey),
    region,
    ...(roleArn === undefined ? {} : { roleArn }),
    ...(externalId === undefined ? {} : { externalId }),
  };
}
