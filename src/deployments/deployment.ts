import type { Selectable } from 'kysely';
import type { Operation, Transport } from '../providers/types.ts';
import type { DeploymentsTable } from '../store/tables.ts';

/** Allowed values of one parameter: a list, or an inclusive numeric range. */
export type ParamRule = readonly (string | number | boolean)[] | { min?: number; max?: number };

export interface OperationProfile {
  transports?: readonly Transport[];
  params?: Readonly<Record<string, ParamRule>>;
}

/** DESIGN.md section 5: `{ operations: { [operation]: { transports?, params? } } }`; absent = provider defaults. */
export interface DeploymentProfile {
  operations: Readonly<Partial<Record<Operation, OperationProfile>>>;
}

/** Cents per million tokens (DESIGN.md section 5, Deployment: pricing). */
export interface DeploymentPricing {
  inputCentsPerMTok: number;
  outputCentsPerMTok: number;
  cachedInputCentsPerMTok?: number;
  imageCents?: number;
  audioCentsPerMinute?: number;
}

/** A deployment as the hot path sees it; the API key stays sealed until a call needs it. */
export interface Deployment {
  id: string;
  publicModel: string;
  provider: string;
  upstreamModel: string;
  apiKeyEnvelope: string | null;
  baseUrl: string | null;
  enabled: boolean;
  weight: number;
  rpmLimit: number | null;
  tpmLimit: number | null;
  pricing: DeploymentPricing | null;
  profile: DeploymentProfile | null;
  providerOptions: Readonly<Record<string, unknown>>;
}

export type DeploymentRow = Selectable<DeploymentsTable>;

export function deploymentFromRow(row: DeploymentRow): Deployment {
  return {
    id: row.id,
    publicModel: row.public_model,
    provider: row.provider,
    upstreamModel: row.upstream_model,
    apiKeyEnvelope: row.api_key_envelope,
    baseUrl: row.base_url,
    enabled: row.enabled,
    weight: row.weight,
    rpmLimit: row.rpm_limit,
    tpmLimit: row.tpm_limit,
    pricing: row.pricing as DeploymentPricing | null,
    profile: row.profile as DeploymentProfile | null,
    providerOptions: row.provider_options,
  };
}
