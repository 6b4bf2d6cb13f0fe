import type { Keyring } from '../../crypto/index.ts';
import { isoTime } from '../../diagnostics/iso-time.ts';
import type { Logger } from '../../diagnostics/logger.ts';
import type { CallContext, CallOutcome } from '../../pipeline/call-context.ts';
import { callSlot } from '../../pipeline/call-slot.ts';
import type { CallObserver } from '../../pipeline/pipeline.ts';
import type { Db } from '../../store/database.ts';
import { BatchQueue } from '../batch-queue.ts';
import { type CallSummary, summarizeCall } from '../call-summary.ts';
import { storedError } from '../error-detail.ts';
import { HeldRows } from '../held-rows.ts';
import { promptOf } from '../prompt.ts';
import type { RecordQueueSettings } from '../queue-settings.ts';
import { recordId } from '../record-id.ts';
import { rowJson } from '../recordset-json.ts';
import { capturedResponse, requestCapture } from '../response-capture.ts';
import {
  attemptRows,
  attemptValues,
  finishedOperationRow,
  type OperationStart,
  operationValues,
  startedOperationRow,
} from './operation-rows.ts';
import {
  type OperationRecord,
  type PendingSample,
  releaseRows,
  writeOperations,
} from './operation-writer.ts';
import type { PayloadSampler } from './payload-sampler.ts';

export interface OperationRecorderOptions {
  /** The background view: a batch's write is not bound to a call's dependency timeout. */
  db: Db;
  keyring: Keyring;
  logger: Logger;
  maxPromptLength: number;
  queue: RecordQueueSettings;
  sampler: PayloadSampler;
}

const NO_ATTEMPTS: readonly never[] = Object.freeze([]);

/** What the recorder keeps of a call between its start and its end. */
interface CallState extends OperationStart {
  sampleIfSuccessful: boolean;
}

/**
 * The call's operation id and start, one per call whichever recorder sees it first: a start
 * queued twice (a write that timed out and landed anyway) names the same operation row.
 */
const CALL_STATE = callSlot<CallState>('records.operation');

/**
 * Variant B's record stage: a `gateway_operations` row queued `in_progress` when the call starts,
 * replaced in the queue by its final state with its `upstream_attempts` (and maybe a sealed
 * `payload_samples` row) when it ends. One bounded queue keyed by operation id; the start row is
 * due one flush interval after the call began, so a call shorter than that costs one row, final,
 * and only a longer one has its `in_progress` row written, then finalized by an upsert. The queue
 * is flushed on shutdown (SPEC.md rule 3).
 */
export class OperationRecorder implements CallObserver {
  readonly name = 'records';
  readonly #queue: BatchQueue<OperationRecord>;
  readonly #rows = new HeldRows();
  readonly #sampler: PayloadSampler;
  readonly #maxPromptLength: number;
  readonly #startRowDelayMs: number;

  constructor(options: OperationRecorderOptions) {
    const { db, keyring, logger } = options;
    this.#sampler = options.sampler;
    this.#maxPromptLength = options.maxPromptLength;
    this.#startRowDelayMs = options.queue.flushIntervalMs;
    this.#queue = new BatchQueue<OperationRecord>({
      ...options.queue,
      name: 'gateway_operations',
      logger,
      keyOf: (record) => record.id,
      dueAt: (record) => record.dueAtMs,
      write: (records) => writeOperations(db, keyring, records),
      release: (record) => releaseRows(this.#rows, record),
    });
  }

  get queues(): readonly BatchQueue<unknown>[] {
    return [this.#queue as BatchQueue<unknown>];
  }

  onCallStarted(ctx: CallContext): void {
    try {
      const state = this.#stateOf(ctx);
      if (state.sampleIfSuccessful) requestCapture(ctx);
      this.#queue.push({
        id: state.id,
        operation: startedOperationRow(state, ctx),
        attempts: NO_ATTEMPTS,
        sample: null,
        dueAtMs: ctx.startedAtMs + this.#startRowDelayMs,
      });
    } catch (error) {
      this.#queue.discard(ctx.requestId, error);
    }
  }

  onCallFinished(ctx: CallContext, outcome: CallOutcome): void {
    try {
      const state = this.#stateOf(ctx);
      // The body as the call ended: an extension's beforeUpstream may have replaced the one it
      // started with (a redactor), and the original is kept nowhere (DESIGN.md section 5).
      state.prompt = promptOf(ctx.endpoint.operation, ctx.body, this.#maxPromptLength);
      const call = summarizeCall(ctx, outcome);
      this.#queue.push({
        id: state.id,
        operation: this.#rows.hold(rowJson(operationValues(finishedOperationRow(state, call)))),
        attempts: attemptRows(state.id, call).map((row) => this.#rows.hold(rowJson(attemptValues(row)))),
        sample: this.#sample(ctx, call, state),
        dueAtMs: 0,
      });
    } catch (error) {
      this.#queue.discard(ctx.requestId, error);
    }
  }

  #stateOf(ctx: CallContext): CallState {
    let state = CALL_STATE.get(ctx);
    if (state === undefined) {
      state = {
        id: recordId('op'),
        startedAt: isoTime(ctx.startedAtMs),
        // Known when the call ends: until then an extension may still replace the body.
        prompt: null,
        sampleIfSuccessful: this.#sampler.wantsSuccess(),
      };
      CALL_STATE.set(ctx, state);
    }
    return state;
  }

  #sample(ctx: CallContext, call: CallSummary, state: CallState): PendingSample | null {
    const reason = this.#sampler.reasonFor(call, state.sampleIfSuccessful);
    if (reason === null) return null;
    const plaintext = this.#sampler.plaintextOf({
      requestId: call.requestId,
      operation: call.operation,
      publicModel: call.publicModel,
      request: ctx.body,
      response: capturedResponse(ctx),
      error: storedError(call.error),
    });
    return {
      id: recordId('smp'),
      reason,
      plaintext,
      requestId: call.requestId,
      createdAt: isoTime(call.finishedAtMs),
    };
  }
}
