import type { DeploymentTarget, UpstreamRequest } from '../types.ts';
import { BEDROCK_SIGNING_SERVICE, type BedrockEndpoint, parseBedrockCredentials } from './bedrock-config.ts';
import { signRequest } from './sigv4.ts';

/**
 * A JSON POST to Bedrock Runtime, SigV4-signed with the deployment's credentials: every Bedrock
 * operation (Converse, InvokeModel, CountTokens) is one, streamed answers asking for an event stream.
 */
export function bedrockSignedRequest(input: {
  target: DeploymentTarget;
  endpoint: BedrockEndpoint;
  url: string;
  payload: string;
  stream: boolean;
  now: Date;
}): UpstreamRequest {
  const headers = signRequest({
    method: 'POST',
    url: input.url,
    headers: {
      'content-type': 'application/json',
      accept: input.stream ? 'application/vnd.amazon.eventstream' : 'application/json',
    },
    body: input.payload,
    credentials: parseBedrockCredentials(input.target.apiKey),
    region: input.endpoint.region,
    service: BEDROCK_SIGNING_SERVICE,
    now: input.now,
  });
  return { url: input.url, method: 'POST', headers, body: input.payload };
}
