/**
 * Which credentials sign a Bedrock request, and when. A deployment whose stored key is its
 * credential is signed in `buildRequest`, synchronously (bedrock-signed-request.ts); one whose
 * credentials are fetched (the AWS default chain, an assumed role) is signed by the provider's
 * `authorize` step, once the credentials are in hand (types.ts, RequestAuthorizer).
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

/** True when the deployment's stored key is its credential: the request is signed as it is built. */
export function signsWithStoredKey(target: DeploymentTarget): boolean {
  const source = bedrockCredentialSource({
    hasApiKey: target.apiKey !== null,
    providerOptions: target.providerOptions,
  });
  return source === 'static-key';
}

/** Signs the requests `bedrockSignedRequest` left unsigned, with credentials from the chain or a role. */
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
