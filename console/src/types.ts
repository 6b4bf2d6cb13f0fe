/**
 * The admin API's answers as the console reads them (docs/api.md, Admin): only the fields it reads.
 * test/console/admin-shapes.test.ts checks the server's schemas satisfy them (docs/console.md, Tests).
 */

export interface Deployment {
  id: string;
  publicModel: string;
  provider: string;
  upstreamModel: string;
  hasApiKey: boolean;
  baseUrl: string | null;
  enabled: boolean;
  weight: number;
  rpmLimit: number | null;
  tpmLimit: number | null;
  pricing: Record<string, number> | null;
  profile: unknown;
  providerOptions: Record<string, unknown>;
  updatedAt: string;
}

export interface ResolvedOperation {
  mode: string;
  via: string | null;
  transports: string[];
  contextWindow: number | null;
  capabilities: Record<string, boolean> | null;
  priceSource: 'override' | 'catalog' | 'none';
}

export interface Resolved {
  provider: string;
  publicModel: string;
  upstreamModel: string;
  credentialSource?: string;
  operations: Record<string, ResolvedOperation>;
}

export type BudgetPeriod = 'daily' | 'weekly' | 'monthly' | null;

interface LimitHolder {
  id: string;
  name: string;
  allowedModels: string[];
  rpmLimit: number | null;
  tpmLimit: number | null;
  budgetCents: number | null;
  budgetPeriod: BudgetPeriod;
  spendCents: number;
  periodSpendCents: number;
  budgetResetsAt: string | null;
}

export interface VirtualKey extends LimitHolder {
  teamId: string | null;
  enabled: boolean;
  expiresAt: string | null;
  tags: string[];
  previousKeyExpiresAt: string | null;
}

export interface VirtualKeyWithSecret extends VirtualKey {
  key: string;
}

export type Team = LimitHolder;

export interface Extension {
  id: string;
  description: string;
  critical: boolean;
  enabled: boolean;
  models: string[];
  source: string;
  hooks: string[];
  origin: 'database' | 'directory';
  state: 'active' | 'tripped' | 'skipped';
  consecutiveFailures: number;
  lastFailure: { reason: string; at: string } | null;
}

export interface Attempt {
  index: number;
  deploymentId: string;
  provider: string;
  upstreamModel: string;
  startedAt: string;
  outcome: string;
  latencyMs: number | null;
  firstByteMs: number | null;
  httpStatus: number | null;
  errorClass: string | null;
  errorCode: string | null;
  errorDetail: unknown;
}

export interface Operation {
  id: string;
  requestId: string;
  startedAt: string;
  finishedAt: string | null;
  status: string;
  httpStatus: number | null;
  errorCode: string | null;
  errorClass: string | null;
  operation: string;
  keyId: string | null;
  publicModel: string;
  deploymentId: string | null;
  stream: boolean;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedInputTokens: number | null;
  costCents: number;
  cacheHit: boolean;
  tags: string[];
  extensions: {
    extensionId: string;
    hook: string;
    outcome: string;
    durationMs: number;
    failure: string | null;
  }[];
  latencyMs: number | null;
  prompt: string | null;
  attempts: Attempt[];
}

export interface UsageFigures {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costCents: number;
  errors: number;
}

export interface UsageBucket extends UsageFigures {
  start: string;
}

export interface UsageGroup extends UsageFigures {
  group: string | null;
  series?: UsageBucket[];
}

export interface UsageReport {
  groupBy: string;
  bucket: string | null;
  totals: UsageFigures & { series?: UsageBucket[] };
  data: UsageGroup[];
}

export interface AuditRow {
  id: string;
  kind: string;
  at: string;
  method: string;
  path: string;
  resourceId: string | null;
  status: number;
  requestId: string;
  sourceAddress: string | null;
  reason: string | null;
}
