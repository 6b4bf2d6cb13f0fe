/**
 * Where and how a Bedrock deployment is called: the regional Bedrock Runtime endpoint (AWS General
 * Reference, "Amazon Bedrock endpoints and quotas"), the Converse paths, and the credentials the
 * deployment's API key carries.
 */
import { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { CredentialFacts, CredentialSource, DeploymentTarget } from '../types.ts';
import type { AwsCredentials } from './sigv4.ts';

/** The SigV4 signing name of Bedrock Runtime. */
export const BEDROCK_SIGNING_SERVICE = 'bedrock';

/**
 * `providerOptions` of a Bedrock deployment. Without a static key the credentials come from the AWS
 * default chain; `roleArn` assumes that role (with `externalId` when the role's trust policy asks
 * for one) on top of the key or the chain.
 */
export const bedrockProviderOptionsSchema = z
  .object({
    region: z
      .string()
      .min(1)
      .refine((region) => /^[a-z0-9-]+$/.test(region), 'an AWS region such as us-east-1'),
    roleArn: z
      .string()
      .regex(
        /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/,
        'an IAM role ARN (arn:aws:iam::123456789012:role/name)',
      )
      .optional(),
    // IAM User Guide, "Access to AWS accounts owned by third parties": 2 to 1224 characters.
    externalId: z.string().min(2).max(1224).optional(),
    /** How Claude models are called: `invoke` (InvokeModel, the default) or `converse`. */
    claudeApi: z.enum(['invoke', 'converse']).optional(),
    /** Betas sent with every Claude call (`anthropic_beta`), before the client's. */
    betas: z.array(z.string().min(1)).optional(),
  })
  .refine((options) => options.externalId === undefined || options.roleArn !== undefined, {
    path: ['externalId'],
    message: 'externalId is sent only when assuming a role: give roleArn too',
  });

export type BedrockDeploymentOptions = z.infer<typeof bedrockProviderOptionsSchema>;

export interface BedrockEndpoint {
  /** Origin plus optional path prefix, without a trailing slash. */
  baseUrl: string;
  region: string;
}

function misconfigured(field: string, reason: string): GatewayError {
  return new GatewayError('upstream_error', {
    message: 'The deployment is misconfigured.',
    detail: { field, reason },
  });
}

/** The region is required (it is part of the signature); `baseUrl` overrides the host (VPC endpoints, tests). */
export function resolveBedrockEndpoint(target: DeploymentTarget): BedrockEndpoint {
  const options = bedrockProviderOptionsSchema.safeParse(target.providerOptions);
  if (!options.success) throw misconfigured('providerOptions.region', options.error.message);
  const region = options.data.region;
  const base = target.baseUrl ?? `https://bedrock-runtime.${region}.amazonaws.com`;
  return { baseUrl: base.endsWith('/') ? base.slice(0, -1) : base, region };
}

/** A key is used as it is; a role is assumed on top of the key or the chain; else the AWS default chain. */
export function bedrockCredentialSource({ hasApiKey, providerOptions }: CredentialFacts): CredentialSource {
  if (providerOptions.roleArn !== undefined) return 'aws-assume-role';
  return hasApiKey ? 'static-key' : 'aws-default-chain';
}

/** `POST /model/{modelId}/converse` or `/converse-stream`; the model id (an ARN has `:` and `/`) is one encoded segment. */
export function converseUrl(endpoint: BedrockEndpoint, modelId: string, stream: boolean): string {
  return `${endpoint.baseUrl}/model/${encodeURIComponent(modelId)}/${stream ? 'converse-stream' : 'converse'}`;
}

/** The deployment `apiKey` is `ACCESS_KEY_ID:SECRET_ACCESS_KEY` or `ACCESS_KEY_ID:SECRET_ACCESS_KEY:SESSION_TOKEN`. */
export function parseBedrockCredentials(apiKey: string | null): AwsCredentials {
  if (!apiKey) throw misconfigured('apiKey', 'missing AWS credentials');
  const first = apiKey.indexOf(':');
  const second = first === -1 ? -1 : apiKey.indexOf(':', first + 1);
  if (first <= 0 || second === first + 1)
    throw misconfigured('apiKey', 'expected ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]');
  const accessKeyId = apiKey.slice(0, first);
  const secretAccessKey = second === -1 ? apiKey.slice(first + 1) : apiKey.slice(first + 1, second);
  const sessionToken = second === -1 ? undefined : apiKey.slice(second + 1);
  if (secretAccessKey === '' || sessionToken === '') {
    throw misconfigured('apiKey', 'expected ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]');
  }
  return sessionToken === undefined
    ? { accessKeyId, secretAccessKey }
    : { accessKeyId, secretAccessKey, sessionToken };
}
