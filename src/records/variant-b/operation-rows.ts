import { isoTime } from '../../diagnostics/iso-time.ts';
import type { CallContext } from '../../pipeline/call-context.ts';
import type { GatewayOperationsTable, UpstreamAttemptsTable } from '../../store/tables.ts';
import { type CallSummary, keyIdOf, teamIdOf } from '../call-summary.ts';
import { jsonForDb, storedError } from '../error-detail.ts';
import { storedExtensionRuns } from '../extension-runs.ts';
import {
  type ColumnType,
  columnsOf,
  type RecordsetRow,
  type Timestamp,
  valuesReader,
} from '../recordset-json.ts';

/** A `gateway_operations` row (column names as in migration 0003). */
export type OperationRow = RecordsetRow<GatewayOperationsTable>;

/**
 * Each column of a `gateway_operations` row and its Postgres type, in the order a row's values
 * are written (`rowJson`) and cast back (`positionalRows`); test/records/column-types.test.ts
 * checks the types against the migrated table.
 */
export const OPERATION_COLUMN_TYPES = {
  id: 'text',
  request_id: 'text',
  started_at: 'timestamptz',
  finished_at: 'timestamptz',
  status: 'text',
  http_status: 'integer',
  error_code: 'text',
  error_class: 'text',
  operation: 'text',
  key_id: 'text',
  public_model: 'text',
  deployment_id: 'text',
  stream: 'boolean',
  input_tokens: 'integer',
  output_tokens: 'integer',
  cached_input_tokens: 'integer',
  cost_cents: 'numeric',
  latency_ms: 'integer',
  attempt_count: 'integer',
  prompt: 'text',
  cache_hit: 'boolean',
  tags: 'text[]',
  extensions: 'jsonb',
  team_id: 'text',
  content_filter: 'jsonb',
} as const satisfies Record<keyof OperationRow, ColumnType>;

export const OPERATION_COLUMNS = columnsOf(OPERATION_COLUMN_TYPES);

/** A `gateway_operations` row's values in `OPERATION_COLUMNS` order, for `rowJson`. */
export const operationValues = valuesReader<OperationRow>(OPERATION_COLUMNS);

/** An `upstream_attempts` row. */
export type AttemptRow = RecordsetRow<UpstreamAttemptsTable>;

/** Each column of an `upstream_attempts` row and its Postgres type, as `OPERATION_COLUMN_TYPES`. */
export const ATTEMPT_COLUMN_TYPES = {
  operation_id: 'text',
  attempt_index: 'integer',
  request_id: 'text',
  deployment_id: 'text',
  provider: 'text',
  upstream_model: 'text',
  public_model: 'text',
  started_at: 'timestamptz',
  outcome: 'text',
  latency_ms: 'integer',
  first_byte_ms: 'integer',
  http_status: 'integer',
  error_class: 'text',
  error_code: 'text',
  error_detail: 'jsonb',
} as const satisfies Record<keyof AttemptRow, ColumnType>;

export const ATTEMPT_COLUMNS = columnsOf(ATTEMPT_COLUMN_TYPES);

/** An `upstream_attempts` row's values in `ATTEMPT_COLUMNS` order, for `rowJson`. */
export const attemptValues = valuesReader<AttemptRow>(ATTEMPT_COLUMNS);

/** What every row of a call takes from its start, made once per call; the prompt is set when it ends. */
export interface OperationStart {
  id: string;
  startedAt: Timestamp;
  prompt: string | null;
}

/** The row queued when the call starts; its final row replaces it, in the queue or in the table. */
export function startedOperationRow(start: OperationStart, ctx: CallContext): OperationRow {
  return {
    id: start.id,
    request_id: ctx.requestId,
    started_at: start.startedAt,
    finished_at: null,
    status: 'in_progress',
    http_status: null,
    error_code: null,
    error_class: null,
    operation: ctx.endpoint.operation,
    key_id: keyIdOf(ctx),
    public_model: ctx.publicModel,
    deployment_id: null,
    stream: ctx.stream,
    input_tokens: null,
    output_tokens: null,
    cached_input_tokens: null,
    cost_cents: 0,
    latency_ms: null,
    attempt_count: 0,
    prompt: start.prompt,
    cache_hit: false,
    tags: ctx.tags,
    extensions: null,
    team_id: teamIdOf(ctx),
    content_filter: null,
  };
}

export function finishedOperationRow(start: OperationStart, call: CallSummary): OperationRow {
  return {
    id: start.id,
    request_id: call.requestId,
    started_at: start.startedAt,
    finished_at: isoTime(call.finishedAtMs),
    status: call.status,
    http_status: call.httpStatus,
    error_code: call.error?.code ?? null,
    error_class: call.error?.errorClass ?? null,
    operation: call.operation,
    key_id: call.keyId,
    public_model: call.publicModel,
    deployment_id: call.deploymentId,
    stream: call.stream,
    input_tokens: call.inputTokens,
    output_tokens: call.outputTokens,
    cached_input_tokens: call.cachedInputTokens,
    cost_cents: call.costCents,
    latency_ms: Math.max(0, Math.round(call.finishedAtMs - call.startedAtMs)),
    attempt_count: call.attempts.length,
    prompt: start.prompt,
    cache_hit: call.cache === 'hit',
    tags: call.tags,
    extensions: storedExtensionRuns(call.extensions),
    team_id: call.teamId,
    content_filter: call.contentFilter,
  };
}

/** One row per attempt, with the provider's own error detail (private: shown only by /admin/logs). */
export function attemptRows(id: string, call: CallSummary): AttemptRow[] {
  return call.attempts.map((attempt, index) => ({
    operation_id: id,
    attempt_index: index,
    request_id: call.requestId,
    deployment_id: attempt.deploymentId,
    provider: attempt.provider,
    upstream_model: attempt.upstreamModel,
    public_model: attempt.publicModel,
    started_at: isoTime(attempt.startedAtMs),
    outcome: attempt.outcome,
    latency_ms: Math.max(0, Math.round(attempt.latencyMs)),
    first_byte_ms: attempt.firstByteMs === null ? null : Math.max(0, Math.round(attempt.firstByteMs)),
    http_status: attempt.status,
    error_class: attempt.error?.errorClass ?? null,
    error_code: attempt.error?.code ?? null,
    error_detail: jsonForDb(storedError(attempt.error)),
  }));
}
