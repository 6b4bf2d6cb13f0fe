/**
 * The answer side of stored state: the answer of a stored call is presented as the gateway's
 * response (its id, `store: true`, the client's `previous_response_id`) and written before its
 * last byte leaves, so a follow-up sent the moment the answer ended finds it, on any replica. A
 * call with `store: false` never waits on the database.
 */

import type { Logger } from '../diagnostics/logger.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { isRecord } from '../formats/json.ts';
import { UnparsedEvent } from '../formats/sse.ts';
import type { StreamEvent } from '../formats/stream-event.ts';
import type { AttemptResult } from '../pipeline/attempt-result.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import { RESPONSE_CALL_STATE, type ResponseCallState } from './call-state.ts';
import { inputItems } from './conversation.ts';
import type { ResponseStateStore } from './state-store.ts';

type ResponseObject = Record<string, unknown>;

/** What a client should wait before retrying a call whose state could not be stored. */
const STORE_RETRY_AFTER_SECONDS = 2;

/** Events whose response is the answer a plain call would have received (API reference, "Streaming events"). */
const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete']);

export interface StateWriterDeps {
  store: ResponseStateStore;
  /** Told of each write, so that expired rows are pruned on write traffic. */
  onWrite(): void;
  logger: Logger;
}

export class ResponseStateWriter {
  readonly #deps: StateWriterDeps;

  constructor(deps: StateWriterDeps) {
    this.#deps = deps;
  }

  /** The answer as the client gets it, stored first when the call asked for it. */
  async answer(ctx: CallContext, result: AttemptResult): Promise<AttemptResult> {
    const state = RESPONSE_CALL_STATE.get(ctx);
    if (state === undefined || (state.storeAs === null && state.previousResponseId === null)) return result;
    if (result.kind === 'stream') return { ...result, events: this.#presenting(ctx, state, result.events) };
    if (!isRecord(result.answer) || result.textContentType !== undefined) return result;
    const answer = presented(result.answer, state);
    await this.#write(ctx, state, answer);
    // The upstream's text names its own id: the answer is serialised again.
    return { kind: 'json', answer, usage: result.usage };
  }

  async *#presenting(
    ctx: CallContext,
    state: ResponseCallState,
    events: AsyncIterable<readonly StreamEvent[]>,
  ): AsyncGenerator<readonly StreamEvent[]> {
    for await (const batch of events) {
      let final: ResponseObject | null = null;
      const out = batch.map((event) => {
        // A delta passed on unparsed holds no response; reading its data would parse it.
        if (event instanceof UnparsedEvent) return event;
        const data = event.data;
        if (!isRecord(data) || !isRecord(data.response)) return event;
        const response = presented(data.response, state);
        if (typeof data.type === 'string' && TERMINAL_EVENTS.has(data.type)) final = response;
        return { ...event, data: { ...data, response } };
      });
      if (final !== null) await this.#write(ctx, state, final);
      yield out;
    }
  }

  /**
   * A call that asked to be stored needs the database (SPEC.md: a dependency outage is 503
   * `service_unavailable` with Retry-After): a write that fails (the database away past
   * DEPENDENCY_TIMEOUT_MS) fails the call, JSON or stream, rather than answer `store: false` and
   * keep nothing for the next call's `previous_response_id`. A stream that already said
   * `store: true` in `response.created` ends with the format's error event, never with a
   * `response.completed` that contradicts it. The log says why, never what.
   */
  async #write(ctx: CallContext, state: ResponseCallState, response: ResponseObject): Promise<void> {
    if (state.storeAs === null) return;
    try {
      await this.#deps.store.insert({
        id: state.storeAs,
        owner: ctx.principal,
        publicModel: typeof response.model === 'string' ? response.model : ctx.publicModel,
        status: typeof response.status === 'string' ? response.status : 'completed',
        input: inputItems(ctx.body.input),
        response,
      });
      this.#deps.onWrite();
    } catch (error) {
      this.#deps.logger.warn(
        {
          requestId: ctx.requestId,
          responseId: state.storeAs,
          err: error instanceof Error ? error.message : String(error),
        },
        'response state not stored; the call answers 503',
      );
      throw new GatewayError('service_unavailable', {
        message:
          'The response could not be stored: the database is not answering. Retry shortly, or send store: false.',
        retryAfterSeconds: STORE_RETRY_AFTER_SECONDS,
        cause: error,
      });
    }
  }
}

/**
 * The response as the gateway serves it: its own id and the client's statefulness fields. A copy:
 * the answer stages before this one (the response cache) keep the upstream's answer.
 */
function presented(response: ResponseObject, state: ResponseCallState): ResponseObject {
  return {
    ...response,
    id: state.storeAs ?? response.id,
    store: state.storeAs !== null,
    previous_response_id: state.previousResponseId,
  };
}
