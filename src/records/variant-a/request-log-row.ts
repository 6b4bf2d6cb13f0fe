import { isoTime } from '../../diagnostics/iso-time.ts';
import type { RequestLogsTable } from '../../store/tables.ts';
import type { CallSummary } from '../call-summary.ts';
import { jsonForDb, storedError } from '../error-detail.ts';
import { storedExtensionRuns } from '../extension-runs.ts';
import { recordId } from '../record-id.ts';
import type { RecordsetRow } from '../recordset-json.ts';

/** One `request_logs` row, in column order of REQUEST_LOG_COLUMNS. */
export type RequestLogRow = RecordsetRow<RequestLogsTable>;

export const REQUEST_LOG_COLUMNS = [
  'id',
  'request_id',
  'created_at',
  'key_id',
  'operation',
  'public_model',
  'deployment_id',
  'status',
  'error_code',
  'input_tokens',
  'output_tokens',
  'cost_cents',
  'latency_ms',
  'prompt',
  'error_detail',
  'cache_hit',
  'tags',
  'extensions',
  'team_id',
  'content_filter',
] as const satisfies readonly (keyof RequestLogRow)[];

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
