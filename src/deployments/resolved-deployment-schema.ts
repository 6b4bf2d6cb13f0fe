import { z } from 'zod';
import { CREDENTIAL_SOURCES, OPERATIONS, TRANSPORTS } from '../providers/types.ts';
import { paramRuleSchema } from './deployment-schemas.ts';

/** The answer of `POST /admin/deployments/resolve`, for the OpenAPI document (shape of ResolvedDeployment). */
export const resolvedDeploymentSchema = z
  .object({
    provider: z.string(),
    publicModel: z.string(),
    upstreamModel: z.string(),
    credentialSource: z.enum(CREDENTIAL_SOURCES).meta({
      description:
        'Where a call gets its credential: the stored key, a cloud credential chain (AWS default chain, an assumed role, Google service account or default credentials, Azure Entra ID), or none.',
    }),
    operations: z.partialRecord(
      z.enum(OPERATIONS),
      z.object({
        mode: z.enum(['native', 'translated']),
        via: z
          .enum(OPERATIONS)
          .nullable()
          .meta({ description: 'The native operation a translated one is served through.' }),
        transports: z.array(z.enum(TRANSPORTS)),
        params: z
          .record(z.string(), paramRuleSchema)
          .nullable()
          .meta({ description: 'Allowed parameter values; null = no restriction by the gateway.' }),
        contextWindow: z.number().int().nullable().meta({ description: 'Tokens, from the catalog.' }),
        capabilities: z.record(z.string(), z.boolean()).nullable(),
        priceSource: z.enum(['override', 'catalog', 'none']),
      }),
    ),
  })
  .meta({ id: 'ResolvedDeployment' });
