/**
 * The admin API's deployment inputs (DESIGN.md section 5, Deployment), validated at the edge with
 * the same schemas that document them in OpenAPI. Messages never quote the input: a rejected
 * `apiKey` must not come back in an error.
 */
import { z } from 'zod';
import { modelPricingSchema } from '../catalog/model-pricing.ts';
import { OPERATIONS, TRANSPORTS } from '../providers/types.ts';
import { rateLimitSchema as limit } from './rate-limit-schema.ts';

/** Longest credential accepted: far above any provider's (Bedrock's session tokens run to ~2 KB). */
const MAX_API_KEY_LENGTH = 8192;
const MAX_NAME_LENGTH = 256;

const name = (what: string) =>
  z.string().trim().min(1, `${what} must not be empty`).max(MAX_NAME_LENGTH, `${what} is too long`);

/** Cents per million tokens, per image and per audio minute: the catalog's own price shape. */
export const deploymentPricingSchema = modelPricingSchema.meta({
  id: 'DeploymentPricing',
  description: 'Price override in cents; replaces the catalog price for this deployment.',
});

const paramValue = z.union([z.string(), z.number().finite(), z.boolean()]);

const paramRangeSchema = z
  .strictObject({ min: z.number().finite().optional(), max: z.number().finite().optional() })
  .refine((range) => range.min !== undefined || range.max !== undefined, 'give min, max or both')
  .refine(
    (range) => range.min === undefined || range.max === undefined || range.min <= range.max,
    'min must not exceed max',
  );

/** Allowed values of one request parameter: a list, or an inclusive numeric range. */
export const paramRuleSchema = z.union(
  [z.array(paramValue).min(1, 'list at least one allowed value'), paramRangeSchema],
  { error: 'expected a non-empty array of allowed values, or { min, max }' },
);

export const operationProfileSchema = z.strictObject({
  transports: z
    .array(z.enum(TRANSPORTS))
    .min(1, 'list at least one transport')
    .refine((list) => new Set(list).size === list.length, 'transports must not repeat')
    .optional(),
  params: z.record(z.string().min(1), paramRuleSchema).optional(),
});

export const deploymentProfileSchema = z
  .strictObject({
    operations: z
      .partialRecord(z.enum(OPERATIONS), operationProfileSchema)
      .refine((operations) => Object.keys(operations).length > 0, 'list at least one operation'),
  })
  .meta({
    id: 'DeploymentProfile',
    description:
      'The operations the deployment serves, with their transports and allowed parameter values; absent = every operation the provider serves, with its defaults.',
  });

const baseUrlSchema = z
  .url({ protocol: /^https?$/, error: 'expected an http or https URL' })
  .max(2048, 'baseUrl is too long');

const apiKeySchema = z
  .string()
  .min(1, 'apiKey must not be empty')
  .max(MAX_API_KEY_LENGTH, 'apiKey is too long')
  .meta({ description: 'Provider credential. Write-only: never returned; responses carry `hasApiKey`.' });

const providerOptionsSchema = z
  .record(z.string(), z.unknown())
  .meta({ description: 'Provider-specific options (Azure `apiVersion`, Bedrock `region`, ...).' });

/** `POST /admin/deployments` and `POST /admin/deployments/resolve`. */
export const deploymentCreateSchema = z
  .strictObject({
    publicModel: name('publicModel'),
    provider: name('provider'),
    upstreamModel: name('upstreamModel'),
    apiKey: apiKeySchema.nullish(),
    baseUrl: baseUrlSchema.nullish(),
    enabled: z.boolean().default(true),
    weight: z.number().finite().positive('weight must be greater than 0').default(1),
    rpmLimit: limit.nullish(),
    tpmLimit: limit.nullish(),
    pricing: deploymentPricingSchema.nullish(),
    profile: deploymentProfileSchema.nullish(),
    providerOptions: providerOptionsSchema.default({}),
  })
  .meta({ id: 'DeploymentCreate' });

export type DeploymentCreateInput = z.infer<typeof deploymentCreateSchema>;

/** `PATCH /admin/deployments/:id`: absent = unchanged, `null` clears a nullable field, `apiKey` replaces. */
export const deploymentPatchSchema = z
  .strictObject({
    publicModel: name('publicModel').optional(),
    provider: name('provider').optional(),
    upstreamModel: name('upstreamModel').optional(),
    apiKey: apiKeySchema.nullable().optional(),
    baseUrl: baseUrlSchema.nullable().optional(),
    enabled: z.boolean().optional(),
    weight: z.number().finite().positive('weight must be greater than 0').optional(),
    rpmLimit: limit.nullable().optional(),
    tpmLimit: limit.nullable().optional(),
    pricing: deploymentPricingSchema.nullable().optional(),
    profile: deploymentProfileSchema.nullable().optional(),
    providerOptions: providerOptionsSchema.nullable().optional(),
  })
  .meta({ id: 'DeploymentPatch' });

export type DeploymentPatchInput = z.infer<typeof deploymentPatchSchema>;
