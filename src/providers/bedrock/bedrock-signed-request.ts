import type { DeploymentTarget, UpstreamRequest } from '../types.ts';
import { BEDROCK_SIGNING_SERVICE, type BedrockEndpoint, parseBedrockCredentials } from './bedrock-config.ts';
import { signsWithStoredKey } from './bedrock-signing.ts';
import { signRequest } from './sigv4.ts';

/**
 * A JSON POST to Bedrock Runtime: every Bedrock operation (Converse, InvokeModel, CountTokens) is
 * one, streamed answers asking for an event stream. Signed here with the deployment's stored key
 * when that is its credential; otherwise left for the provider's `authorize` step, which signs it
 * with credentials from the AWS chain or an assumed role (bedrock-signing.ts).
 */
export function bedrockSignedRequest(input: {
  target: DeploymentTarget;
  endpoint: BedrockEndpoint;
  url: string;
  payload: string;
  stream: boolean;
  now: Date;
}): UpstreamRequest {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: input.stream ? 'application/vnd.amazon.eventstream' : 'application/json',
  };
  const sent = signsWithStoredKey(input.target)
    ? signRequest({
        method: 'POST',
        url: input.url,
        headers,
        body: input.payload,
        credentials: parseBedrockCredentials(input.target.apiKey),
        region: input.endpoint.region,
        service: BEDROCK_SIGNING_SERVICE,
        now: input.now,
      })
    : headers;
  return { url: input.url, method: 'POST', headers: sent, body: input.payload };
}
