import type { Logger } from '../../diagnostics/logger.ts';
import type { CallContext, CallOutcome } from '../../pipeline/call-context.ts';
import type { CallObserver } from '../../pipeline/pipeline.ts';
import { type Db, execute } from '../../store/database.ts';
import { BatchQueue } from '../batch-queue.ts';
import { summarizeCall } from '../call-summary.ts';
import { promptOf } from '../prompt.ts';
import type { RecordQueueSettings } from '../queue-settings.ts';
import { insertPositionalRows, recordsetJson } from '../recordset-json.ts';
import {
  REQUEST_LOG_COLUMN_TYPES,
  type RequestLogRow,
  requestLogRow,
  requestLogValues,
} from './request-log-row.ts';

export interface RequestLogRecorderOptions {
  /** The background view: a batch's write is not bound to a call's dependency timeout. */
  db: Db;
  logger: Logger;
  maxPromptLength: number;
  queue: RecordQueueSettings;
}

/**
 * A batch of rows in one statement, each row the array of its values (recordset-json.ts
 * `positionalRows`: without the column names in every row, and read by Postgres faster than
 * `json_populate_recordset` reads objects; docs/decisions/hot-path.md, Record rows written as
 * arrays). Written once per call; `do nothing` makes a batch retried after a write that timed out
 * but landed anyway a no-op instead of a key violation.
 */
const INSERT_REQUEST_LOGS = `${insertPositionalRows('request_logs', REQUEST_LOG_COLUMN_TYPES, 1)}
  on conflict do nothing`;

/**
 * Variant A's record stage: one `request_logs` row per call, written once, when the call ends,
 * queued and written in batches by one multi-row INSERT per batch (COPY hangs through the embedded
 * PGlite socket; DESIGN.md section 1).
 */
export class RequestLogRecorder implements CallObserver {
  readonly name = 'records';
  readonly #queue: BatchQueue<RequestLogRow>;
  readonly #maxPromptLength: number;

  constructor(options: RequestLogRecorderOptions) {
    const { db } = options;
    this.#maxPromptLength = options.maxPromptLength;
    this.#queue = new BatchQueue({
      ...options.queue,
      name: 'request_logs',
      logger: options.logger,
      write: async (rows) => {
        await execute(db, INSERT_REQUEST_LOGS, [recordsetJson(rows.map(requestLogValues))]);
      },
    });
  }

  get queue(): BatchQueue<RequestLogRow> {
    return this.#queue;
  }

  onCallFinished(ctx: CallContext, outcome: CallOutcome): void {
    try {
      this.#queue.push(
        requestLogRow(
          summarizeCall(ctx, outcome),
          promptOf(ctx.endpoint.operation, ctx.body, this.#maxPromptLength),
        ),
      );
    } catch (error) {
      // A record must never fail the call; a row that cannot be built is counted as dropped.
      this.#queue.discard(ctx.requestId, error);
    }
  }
}
