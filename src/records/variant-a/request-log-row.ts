import { isoTime } from '../../diagnostics/iso-time.ts';
import type { RequestLogsTable } from '../../store/tables.ts';
import type { CallSummary } from '../call-summary.ts';
import { jsonForDb, storedError } from '../error-detail.ts';
import { storedExtensionRuns } from '../extension-runs.ts';
import { recordId } from '../record-id.ts';
import { type ColumnType, columnsOf, type RecordsetRow, valuesReader } from '../recordset-json.ts';

/** One `request_logs` row. */
export type RequestLogRow = RecordsetRow<RequestLogsTable>;

/**
 * Each column of a `request_logs` row and its Postgres type, in the order a batch writes its
 * values (`requestLogValues`, cast back by `positionalRows`); test/records/column-types.test.ts
 * checks the types against the migrated table.
 */
export const REQUEST_LOG_COLUMN_TYPES = {
  id: 'text',
  request_id: 'text',
  created_at: 'timestamptz',
  key_id: 'text',
  operation: 'text',
  public_model: 'text',
  deployment_id: 'text',
  status: 'integer',
  error_code: 'text',
  input_tokens: 'integer',
  output_tokens: 'integer',
  cost_cents: 'numeric',
  latency_ms: 'integer',
  prompt: 'text',
  error_detail: 'jsonb',
  cache_hit: 'boolean',
  tags: 'text[]',
  extensions: 'jsonb',
  team_id: 'text',
  content_filter: 'jsonb',
} as const satisfies Record<keyof RequestLogRow, ColumnType>;

/** A `request_logs` row's values in its columns' order, as a batch writes them. */
export const requestLogValues = valuesReader<RequestLogRow>(columnsOf(REQUEST_LOG_COLUMN_TYPES));

/**
 * Variant A keeps one row per call with the full provider error detail, correlated by request id
 * (SPEC.md, Request log records); a retried call's earlier failures ride along in `attempts`.
 */
export function requestLogRow(call: CallSummary, prompt: string | null): RequestLogRow {
  const error = storedError(call.error);
  const failedAttempts = call.attempts
    .filter((attempt) => attempt.error !== null)
    .map((attempt) => ({ deploymentId: attempt.deploymentId, ...storedError(attempt.error) }));
  const detail =
    error === null && failedAttempts.length === 0 ? null : { ...error, attempts: failedAttempts };
  return {
    id: recordId('log'),
    request_id: call.requestId,
    created_at: isoTime(call.startedAtMs),
    key_id: call.keyId,
    operation: call.operation,
    public_model: call.publicModel,
    deployment_id: call.deploymentId,
    status: call.httpStatus,
    error_code: call.error?.code ?? null,
    input_tokens: call.inputTokens,
    output_tokens: call.outputTokens,
    cost_cents: call.costCents,
    latency_ms: Math.max(0, Math.round(call.finishedAtMs - call.startedAtMs)),
    prompt,
    error_detail: jsonForDb(detail),
    cache_hit: call.cache === 'hit',
    tags: call.tags,
    extensions: storedExtensionRuns(call.extensions),
    team_id: call.teamId,
    content_filter: call.contentFilter,
  };
}
