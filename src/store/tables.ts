/**
 * Kysely table types: the database schema as the code sees it. Columns mirror the migrations in
 * ./migrations; a migration that adds a table adds its interface here.
 */
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string | T, string | T>;

export interface DeploymentsTable {
  id: string;
  public_model: string;
  provider: string;
  upstream_model: string;
  api_key_envelope: string | null;
  /** Key id of the envelope, so rotation finds what is not under the active key with an index. */
  api_key_key_id: string | null;
  base_url: string | null;
  enabled: Generated<boolean>;
  weight: Generated<number>;
  rpm_limit: number | null;
  tpm_limit: number | null;
  pricing: Json<Record<string, number> | null>;
  profile: Json<Record<string, unknown> | null>;
  provider_options: Json<Record<string, unknown>>;
  created_at: Generated<Timestamp>;
  updated_at: Generated<Timestamp>;
  /** Migration 0011: the name a configuration file gives the object; null: made through the admin API. */
  config_name: string | null;
  /** Migration 0011: where the secret came from in the configuration file, never the secret. */
  secret_ref: string | null;
}

/** Variant B extensions (migration 0007); the source only as an envelope. */
export interface ExtensionsTable {
  id: string;
  description: Generated<string>;
  critical: Generated<boolean>;
  enabled: Generated<boolean>;
  models: Generated<string[]>;
  source_envelope: string;
  source_key_id: string;
  config: Json<unknown>;
  timeout_ms: number;
  memory_mb: number;
  created_at: Generated<Timestamp>;
  updated_at: Generated<Timestamp>;
  /** Migration 0015: the name a configuration file gives the extension (its id); null: made through the admin API. */
  config_name: string | null;
  /** Migration 0015: the module file the configuration file read the source from. */
  source_ref: string | null;
}

export interface VirtualKeysTable {
  id: string;
  name: string;
  key_hash: Buffer;
  allowed_models: string[];
  rpm_limit: number | null;
  tpm_limit: number | null;
  budget_cents: number | null;
  spend_cents: Generated<number>;
  enabled: Generated<boolean>;
  expires_at: Timestamp | null;
  metadata: Json<Record<string, unknown>>;
  created_at: Generated<Timestamp>;
  updated_at: Generated<Timestamp>;
  /** Migration 0006: the secret a rotation replaced, accepted until `previous_key_expires_at`. */
  previous_key_hash: Buffer | null;
  previous_key_expires_at: Timestamp | null;
  /** Migration 0006: default tags of the key's calls. */
  tags: Generated<string[]>;
  /** Migration 0009: the key's team, budget period and the spend of the period under way. */
  team_id: string | null;
  budget_period: BudgetPeriodColumn;
  budget_reset_at: Timestamp | null;
  period_start: Timestamp | null;
  period_spend_cents: Generated<number>;
  /** Migration 0011: the name a configuration file gives the object; null: made through the admin API. */
  config_name: string | null;
  /** Migration 0011: where the secret came from in the configuration file, never the secret. */
  secret_ref: string | null;
}

/** Migration 0009: null is a lifetime budget. */
export type BudgetPeriodColumn = 'daily' | 'weekly' | 'monthly' | null;

/** Migration 0009 (DESIGN.md section 5, Governance). */
export interface TeamsTable {
  id: string;
  name: string;
  allowed_models: string[];
  rpm_limit: number | null;
  tpm_limit: number | null;
  budget_cents: number | null;
  budget_period: BudgetPeriodColumn;
  budget_reset_at: Timestamp | null;
  spend_cents: Generated<number>;
  period_start: Timestamp | null;
  period_spend_cents: Generated<number>;
  metadata: Json<Record<string, unknown>>;
  created_at: Generated<Timestamp>;
  updated_at: Generated<Timestamp>;
  /** Migration 0011: the name a configuration file gives the object; null: made through the admin API. */
  config_name: string | null;
}

export interface RouterSettingsTable {
  id: number;
  settings: Json<Record<string, unknown>>;
  updated_at: Generated<Timestamp>;
}

export interface SchemaMigrationsTable {
  version: number;
  name: string;
  applied_at: Generated<Timestamp>;
}

/** Variant A request record, partitioned by day on created_at (migration 0002). */
export interface RequestLogsTable {
  id: string;
  request_id: string;
  created_at: Timestamp;
  key_id: string | null;
  operation: string;
  public_model: string;
  deployment_id: string | null;
  status: number;
  error_code: string | null;
  input_tokens: number;
  output_tokens: number;
  cost_cents: number;
  latency_ms: number;
  prompt: string | null;
  error_detail: Json<Record<string, unknown> | null>;
  /** Migration 0004. */
  cache_hit: Generated<boolean>;
  /** Migration 0006. */
  tags: Generated<string[]>;
  /** Migration 0007: the extension hooks that ran on the call (records/extension-runs.ts). */
  extensions: Json<unknown[] | null>;
  /** Migration 0009: the calling key's team. */
  team_id: Generated<string | null>;
  /** Migration 0013: what the provider's content filter withheld (formats/content-filter.ts). */
  content_filter: Json<unknown[] | null>;
}

/** Last run of a periodic job that runs once per cycle across replicas (migration 0002). */
export interface JobRunsTable {
  job: string;
  last_run_at: Timestamp;
}

/** Variant B: one row per call (migration 0003). */
export interface GatewayOperationsTable {
  id: string;
  request_id: string;
  started_at: Timestamp;
  finished_at: Timestamp | null;
  status: 'in_progress' | 'success' | 'failure' | 'cancelled' | 'abandoned';
  http_status: number | null;
  error_code: string | null;
  error_class: string | null;
  operation: string;
  key_id: string | null;
  public_model: string;
  deployment_id: string | null;
  stream: boolean;
  input_tokens: number | null;
  output_tokens: number | null;
  cached_input_tokens: number | null;
  cost_cents: number;
  latency_ms: number | null;
  attempt_count: number;
  prompt: string | null;
  /** Migration 0004. */
  cache_hit: Generated<boolean>;
  /** Migration 0006. */
  tags: Generated<string[]>;
  /** Migration 0007: the extension hooks that ran on the call (records/extension-runs.ts). */
  extensions: Json<unknown[] | null>;
  /** Migration 0009: the calling key's team. */
  team_id: Generated<string | null>;
  /** Migration 0013: what the provider's content filter withheld (formats/content-filter.ts). */
  content_filter: Json<unknown[] | null>;
}

/** Variant B: one row per upstream attempt (migration 0003). */
export interface UpstreamAttemptsTable {
  operation_id: string;
  attempt_index: number;
  request_id: string;
  deployment_id: string;
  provider: string;
  upstream_model: string;
  public_model: string;
  started_at: Timestamp;
  outcome: 'in_progress' | 'success' | 'failure' | 'abandoned';
  latency_ms: number | null;
  first_byte_ms: number | null;
  http_status: number | null;
  error_class: string | null;
  error_code: string | null;
  error_detail: Json<Record<string, unknown> | null>;
}

/** Variant B: encrypted forensic samples, purpose `payload-sample` (migration 0003). */
export interface PayloadSamplesTable {
  id: string;
  operation_id: string;
  request_id: string;
  created_at: Timestamp;
  reason: 'sampled' | 'failure';
  envelope: string;
  /** Key id of the envelope, so rotation finds what is not under the active key with an index. */
  envelope_key_id: string;
  size_bytes: number;
}

/** Admin mutations and payload accesses (migration 0005). */
export interface AuditEventsTable {
  id: string;
  kind: 'admin_mutation' | 'payload_access';
  at: Timestamp;
  actor: string;
  method: string;
  path: string;
  resource_id: string | null;
  status: number;
  request_id: string;
  source_address: string | null;
  reason: string | null;
}

/** Stored Responses state (migration 0008): `content` (variant A) or `envelope` (variant B) is set. */
export interface ResponseStatesTable {
  id: string;
  owner_key_id: string | null;
  public_model: string;
  status: string;
  created_at: Generated<Timestamp>;
  expires_at: Timestamp;
  content: string | null;
  envelope: string | null;
  /** Key id of the envelope, so rotation finds what is not under the active key with an index. */
  envelope_key_id: string | null;
}

export interface Tables {
  deployments: DeploymentsTable;
  virtual_keys: VirtualKeysTable;
  teams: TeamsTable;
  router_settings: RouterSettingsTable;
  schema_migrations: SchemaMigrationsTable;
  request_logs: RequestLogsTable;
  job_runs: JobRunsTable;
  gateway_operations: GatewayOperationsTable;
  upstream_attempts: UpstreamAttemptsTable;
  payload_samples: PayloadSamplesTable;
  audit_events: AuditEventsTable;
  extensions: ExtensionsTable;
  response_states: ResponseStatesTable;
}
