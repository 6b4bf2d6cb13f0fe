/**
 * Stored Responses state and compaction capsules (SPEC.md, Response state; DESIGN.md section 5):
 * the gateway owns the conversation and calls every upstream statelessly. The expand stage turns
 * `previous_response_id` and `compaction` items into the whole conversation before routing; the
 * writer stores a `store: true` answer before its last byte; the GC expires what is due.
 */
import type { Config } from '../config.ts';
import type { Keyring } from '../crypto/index.ts';
import type { Logger } from '../diagnostics/logger.ts';
import type { FeatureModule } from '../pipeline/feature-module.ts';
import type { AnswerStage, Stage } from '../pipeline/stage.ts';
import type { Database } from '../store/database.ts';
import { CapsuleSealer } from './capsules.ts';
import { Compactor } from './compactor.ts';
import { ConversationExpander } from './conversation-expander.ts';
import { expandConversationStage } from './expand-stage.ts';
import { type ExpiryPolicy, expiryOf } from './expiry.ts';
import { ResponseStateGc } from './state-gc.ts';
import { ResponseStateStore } from './state-store.ts';
import { ResponseStateWriter } from './state-writer.ts';

export type { CompactedResponse } from './compactor.ts';
export { Compactor } from './compactor.ts';
export type { ConversationItem, StoredConversation } from './conversation.ts';
export { ResponseStateStore } from './state-store.ts';

export interface ResponsesStateDeps {
  config: Config;
  database: Database;
  keyring: Keyring;
  logger: Logger;
}

export interface ResponsesState {
  /** The stage that inlines stored and compacted conversations; first for each model of a call. */
  expand: Stage;
  /**
   * The answer stage: presents and stores the answer of a Responses call, an upstream's or a
   * response-cache hit's (a hit is a response of its own, under its own id).
   */
  answer: AnswerStage;
  store: ResponseStateStore;
  /** `POST /v1/responses/compact`; null in variant A, which has no capsules. */
  compactor: Compactor | null;
  gc: ResponseStateGc;
  start(): void;
  stop(): Promise<void>;
  /** The expansion before the model checks, the write at its answer place, the GC job. */
  module: FeatureModule;
}

export function createResponsesState(deps: ResponsesStateDeps): ResponsesState {
  const { config, database, keyring, logger } = deps;
  const expiry: ExpiryPolicy = { variant: config.variant, retentionDays: config.responsesStateRetentionDays };
  const store = new ResponseStateStore({ db: database.db, keyring, variant: config.variant, expiry, logger });
  const capsules = config.variant === 'b' ? new CapsuleSealer(keyring) : null;
  const expander = new ConversationExpander(store, capsules);
  const gc = new ResponseStateGc({
    db: database.background,
    expiry: expiryOf(expiry),
    intervalMs: config.responseStateGcIntervalMs,
    logger,
  });
  const writer = new ResponseStateWriter({ store, onWrite: () => gc.pruneSoon(), logger });
  const expand = expandConversationStage(expander, config.responsesStoreDefault);
  const answer: AnswerStage = {
    name: 'responses-state.store',
    operations: ['responses'],
    run: (ctx, result) => writer.answer(ctx, result),
  };
  const start = () => gc.start();
  const stop = () => gc.stop();
  return {
    expand,
    answer,
    store,
    compactor: capsules === null ? null : new Compactor(expander, capsules),
    gc,
    start,
    stop,
    module: {
      name: 'responses-state',
      // Conversations are inlined before any check reads the body (DESIGN.md section 5).
      preflight: [expand],
      answer: { 'state-write': answer },
      start,
      shutdown: [{ phase: 'flush', name: 'response state gc', run: stop }],
    },
  };
}
