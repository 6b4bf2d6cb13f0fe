import { z } from 'zod';
import type { OpenAIOperation } from '../openai/openai-config.ts';
import type { CredentialFacts, CredentialSource } from '../types.ts';

/**
 * The API a deployment is called on by default: Azure OpenAI's v1 API (Azure OpenAI, "API version
 * lifecycle": GA since August 2025, `{endpoint}/openai/v1/...`, the deployment name as the body's
 * `model`, no dated `api-version`), which takes every parameter current models take
 * (`reasoning_effort`, `verbosity`) and the Responses API. A deployment may pin a dated version
 * (`2024-10-21`, `2025-04-01-preview`) through `providerOptions.apiVersion`: it is then called on
 * the deployment-scoped paths with `?api-version=` (azure-endpoint.ts), and a parameter that
 * version predates is refused (azure-api-version.ts).
 */
export const AZURE_DEFAULT_API_VERSION = 'v1';

/** A dated data-plane version: `YYYY-MM-DD`, or `YYYY-MM-DD-preview`. */
const DATED_API_VERSION = /^\d{4}-\d{2}-\d{2}(-preview)?$/;

/**
 * The first dated version with the Responses API (`/openai/responses?api-version=`, Azure OpenAI,
 * "Responses API": `2025-03-01-preview`); the v1 API has it at `/openai/v1/responses`.
 */
export const AZURE_RESPONSES_SINCE = '2025-03-01-preview';

/** The token scope of Azure OpenAI for Microsoft Entra ID ("Role-based access control for Azure OpenAI"). */
export const COGNITIVE_SERVICES_SCOPE = 'https://cognitiveservices.azure.com/.default';

/** Operations an Azure OpenAI deployment serves natively; `responses` too when it declares it. */
export const AZURE_OPERATIONS: readonly OpenAIOperation[] = Object.freeze([
  'chat.completions',
  'embeddings',
  'images.generations',
  'audio.transcriptions',
]);

/** A GUID as Entra ID writes tenant and client ids. */
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const entraSchema = z.object({
  /** The directory (tenant) id: required with a client secret, else AZURE_TENANT_ID's. */
  tenantId: z.string().regex(GUID, 'a directory (tenant) id, a GUID').optional(),
  /** The application (client) id: of the app registration, or of a user-assigned managed identity. */
  clientId: z.string().regex(GUID, 'an application (client) id, a GUID').optional(),
  /** A sovereign cloud's or a private authority (https); default: Microsoft's public cloud. */
  authorityHost: z.url({ protocol: /^https$/, error: 'an https URL' }).optional(),
});

export const azureProviderOptionsSchema = z.object({
  apiVersion: z
    .string()
    .refine((v) => v === 'v1' || DATED_API_VERSION.test(v), 'v1, or a dated version such as 2024-10-21')
    .optional(),
  /** True when the deployment's model takes the Responses API: Responses calls are then served natively. */
  responsesApi: z.boolean().optional(),
  /** Microsoft Entra ID instead of the `api-key`: the stored credential is then the client secret. */
  entra: entraSchema.strict().optional(),
});
export type AzureProviderOptions = z.infer<typeof azureProviderOptionsSchema>;

/** The schema deployments are checked with when saved: the fields, and how they go together. */
export const azureOptionsSchema = azureProviderOptionsSchema.strict().superRefine((options, ctx) => {
  const version = options.apiVersion ?? AZURE_DEFAULT_API_VERSION;
  if (options.responsesApi === true && version !== 'v1' && version < AZURE_RESPONSES_SINCE) {
    ctx.addIssue({
      code: 'custom',
      path: ['responsesApi'],
      message: `the Responses API needs apiVersion v1 or ${AZURE_RESPONSES_SINCE} and later`,
    });
  }
});

/** The options of a deployment already checked when it was saved. */
export function azureOptionsOf(providerOptions: Readonly<Record<string, unknown>>): AzureProviderOptions {
  return azureProviderOptionsSchema.parse(providerOptions);
}

/**
 * The stored key is the `api-key` unless the deployment names an Entra app (`entra`), when it is
 * that app's client secret; without a stored key, the workload's own Entra identity.
 */
export function azureCredentialSource({ hasApiKey, providerOptions }: CredentialFacts): CredentialSource {
  return hasApiKey && providerOptions.entra === undefined ? 'azure-api-key' : 'azure-entra-id';
}
