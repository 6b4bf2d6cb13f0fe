import { z } from 'zod';
import { isoString } from '../admin-kit/iso-string.ts';
import type { DeploymentRow } from './deployment.ts';
import { deploymentPricingSchema, deploymentProfileSchema } from './deployment-schemas.ts';

/**
 * A deployment as the admin API shows it. Built field by field from the row, never by spreading
 * it, so the credential envelope cannot slip into a response: `hasApiKey` says whether there is
 * one, `apiKeyKeyId` under which encryption key it is sealed (an id, never key material).
 */
export const deploymentViewSchema = z
  .object({
    id: z.string().meta({ example: 'dep_0m5x2k1a09f3c2b1a0e4d5c6' }),
    publicModel: z.string(),
    provider: z.string(),
    upstreamModel: z.string(),
    hasApiKey: z.boolean(),
    apiKeyKeyId: z
      .string()
      .nullable()
      .meta({ description: 'Encryption key id the credential is sealed under; rotation moves it.' }),
    baseUrl: z.string().nullable(),
    enabled: z.boolean(),
    weight: z.number(),
    rpmLimit: z.number().int().nullable(),
    tpmLimit: z.number().int().nullable(),
    pricing: deploymentPricingSchema.nullable(),
    profile: deploymentProfileSchema.nullable(),
    providerOptions: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Deployment' });

export type DeploymentView = z.infer<typeof deploymentViewSchema>;

export function deploymentView(row: DeploymentRow): DeploymentView {
  return {
    id: row.id,
    publicModel: row.public_model,
    provider: row.provider,
    upstreamModel: row.upstream_model,
    hasApiKey: row.api_key_envelope !== null,
    apiKeyKeyId: row.api_key_envelope === null ? null : row.api_key_key_id,
    baseUrl: row.base_url,
    enabled: row.enabled,
    weight: row.weight,
    rpmLimit: row.rpm_limit,
    tpmLimit: row.tpm_limit,
    pricing: row.pricing as DeploymentView['pricing'],
    profile: row.profile as DeploymentView['profile'],
    providerOptions: row.provider_options,
    createdAt: isoString(row.created_at),
    updatedAt: isoString(row.updated_at),
  };
}
