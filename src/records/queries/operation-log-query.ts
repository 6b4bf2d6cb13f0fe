import { type Selectable, sql } from 'kysely';
import type { ContentFilterHit } from '../../formats/content-filter.ts';
import type { Db } from '../../store/database.ts';
import type { GatewayOperationsTable, UpstreamAttemptsTable } from '../../store/tables.ts';
import type { StoredExtensionRun } from '../extension-runs.ts';
import { keysetPage, type PageCursor } from './cursor.ts';

export const OPERATION_STATUSES = ['in_progress', 'success', 'failure', 'cancelled', 'abandoned'] as const;

export interface OperationLogFilter {
  requestId?: string;
  keyId?: string;
  /** The calling key's team when the call was made. */
  teamId?: string;
  publicModel?: string;
  /** Operations served by the deployment or with any attempt on it. */
  deploymentId?: string;
  status?: (typeof OPERATION_STATUSES)[number];
  code?: string;
  /** Operations carrying this tag. */
  tag?: string;
  since?: Date;
  until?: Date;
  limit: number;
  cursor?: PageCursor;
}

export interface AttemptView {
  index: number;
  deploymentId: string;
  provider: string;
  upstreamModel: string;
  publicModel: string;
  startedAt: string;
  outcome: string;
  latencyMs: number | null;
  firstByteMs: number | null;
  httpStatus: number | null;
  errorClass: string | null;
  errorCode: string | null;
  /** The provider's own status, message and body: shown here only, never in a /v1 answer. */
  errorDetail: unknown;
}

export interface OperationView {
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
  /** The extension hooks that ran on the call (records/extension-runs.ts); empty when none applied. */
  extensions: StoredExtensionRun[];
  latencyMs: number | null;
  prompt: string | null;
  /** What the provider's content filter withheld from the answer; null when nothing was filtered. */
  contentFilter: ContentFilterHit[] | null;
  attempts: AttemptView[];
}

export interface OperationLogPage {
  data: OperationView[];
  nextCursor: string | null;
}

/** `GET /admin/logs`: operations newest first, keyset-paginated, each with its attempts. */
export async function queryOperationLog(db: Db, filter: OperationLogFilter): Promise<OperationLogPage> {
  let query = db.selectFrom('gateway_operations as o').selectAll('o');
  if (filter.requestId !== undefined) query = query.where('o.request_id', '=', filter.requestId);
  if (filter.keyId !== undefined) query = query.where('o.key_id', '=', filter.keyId);
  if (filter.teamId !== undefined) query = query.where('o.team_id', '=', filter.teamId);
  if (filter.publicModel !== undefined) query = query.where('o.public_model', '=', filter.publicModel);
  if (filter.status !== undefined) query = query.where('o.status', '=', filter.status);
  if (filter.code !== undefined) query = query.where('o.error_code', '=', filter.code);
  if (filter.tag !== undefined) query = query.where(sql<boolean>`${filter.tag} = any(o.tags)`);
  if (filter.since !== undefined) query = query.where('o.started_at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('o.started_at', '<', filter.until);
  const deploymentId = filter.deploymentId;
  if (deploymentId !== undefined) {
    query = query.where((eb) =>
      eb.or([
        eb('o.deployment_id', '=', deploymentId),
        eb.exists(
          eb
            .selectFrom('upstream_attempts as a')
            .select('a.attempt_index')
            .whereRef('a.operation_id', '=', 'o.id')
            .where('a.deployment_id', '=', deploymentId),
        ),
      ]),
    );
  }
  const cursor = filter.cursor;
  if (cursor !== undefined) {
    query = query.where((eb) =>
      eb.or([
        eb('o.started_at', '<', cursor.startedAt),
        eb.and([eb('o.started_at', '=', cursor.startedAt), eb('o.id', '<', cursor.id)]),
      ]),
    );
  }
  const rows = await query
    .orderBy('o.started_at', 'desc')
    .orderBy('o.id', 'desc')
    .limit(filter.limit + 1)
    .execute();
  const page = keysetPage(rows, filter.limit, (row) => ({ startedAt: new Date(row.started_at), id: row.id }));
  const attempts = await attemptsOf(
    db,
    page.rows.map((row) => row.id),
  );
  return {
    data: page.rows.map((row) => operationView(row, attempts.get(row.id) ?? [])),
    nextCursor: page.nextCursor,
  };
}

async function attemptsOf(db: Db, operationIds: string[]): Promise<Map<string, AttemptView[]>> {
  const byOperation = new Map<string, AttemptView[]>();
  if (operationIds.length === 0) return byOperation;
  const rows = await db
    .selectFrom('upstream_attempts')
    .selectAll()
    .where('operation_id', 'in', operationIds)
    .orderBy('operation_id')
    .orderBy('attempt_index')
    .execute();
  for (const row of rows) {
    const list = byOperation.get(row.operation_id) ?? [];
    list.push(attemptView(row));
    byOperation.set(row.operation_id, list);
  }
  return byOperation;
}

function iso(value: Date | string): string {
  return new Date(value).toISOString();
}

function operationView(row: Selectable<GatewayOperationsTable>, attempts: AttemptView[]): OperationView {
  return {
    id: row.id,
    requestId: row.request_id,
    startedAt: iso(row.started_at),
    finishedAt: row.finished_at === null ? null : iso(row.finished_at),
    status: row.status,
    httpStatus: row.http_status,
    errorCode: row.error_code,
    errorClass: row.error_class,
    operation: row.operation,
    keyId: row.key_id,
    publicModel: row.public_model,
    deploymentId: row.deployment_id,
    stream: row.stream,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cachedInputTokens: row.cached_input_tokens,
    costCents: Number(row.cost_cents),
    cacheHit: row.cache_hit,
    tags: row.tags,
    extensions: (row.extensions ?? []) as StoredExtensionRun[],
    latencyMs: row.latency_ms,
    prompt: row.prompt,
    contentFilter: row.content_filter as ContentFilterHit[] | null,
    attempts,
  };
}

function attemptView(row: Selectable<UpstreamAttemptsTable>): AttemptView {
  return {
    index: row.attempt_index,
    deploymentId: row.deployment_id,
    provider: row.provider,
    upstreamModel: row.upstream_model,
    publicModel: row.public_model,
    startedAt: iso(row.started_at),
    outcome: row.outcome,
    latencyMs: row.latency_ms,
    firstByteMs: row.first_byte_ms,
    httpStatus: row.http_status,
    errorClass: row.error_class,
    errorCode: row.error_code,
    errorDetail: row.error_detail,
  };
}
