import { isoTime } from '../../diagnostics/iso-time.ts';
import type { CallContext } from '../../pipeline/call-context.ts';
import type { GatewayOperationsTable, UpstreamAttemptsTable } from '../../store/tables.ts';
import { type CallSummary, keyIdOf, teamIdOf } from '../call-summary.ts';
import { jsonForDb, storedError } from '../error-detail.ts';
import { storedExtensionRuns } from '../extension-runs.ts';
import type { RecordsetRow, Timestamp } from '../recordset-json.ts';

/** A `gateway_operations` row (column names as in migration 0003). */
export type OperationRow = RecordsetRow<GatewayOperationsTable>;

export const OPERATION_COLUMNS = [
  'id',
  'request_id',
  'started_at',
  'finished_at',
  'status',
  'http_status',
  'error_code',
  'error_class',
  'operation',
  'key_id',
  'public_model',
  'deployment_id',
  'stream',
  'input_tokens',
  'output_tokens',
  'cached_input_tokens',
  'cost_cents',
  'latency_ms',
  'attempt_count',
  'prompt',
  'cache_hit',
  'tags',
  'extensions',
  'team_id',
  'content_filter',
] as const satisfies readonly (keyof OperationRow)[];

/** An `upstream_attempts` row. */
export type AttemptRow = RecordsetRow<UpstreamAttemptsTable>;

export const ATTEMPT_COLUMNS = [
  'operation_id',
  'attempt_index',
  'request_id',
  'deployment_id',
  'provider',
  'upstream_model',
  'public_model',
  'started_at',
  'outcome',
  'latency_ms',
  'first_byte_ms',
  'http_status',
  'error_class',
  'error_code',
  'error_detail',
] as const satisfies readonly (keyof AttemptRow)[];

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
