import type { CacheStore } from '../cache/cache-store.ts';
import type { Logger } from '../diagnostics/logger.ts';
import { OPERATION_SPECS } from '../formats/operation-spec.ts';
import { type AttemptResult, answerJsonText } from '../pipeline/attempt-result.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import { callSlot } from '../pipeline/call-slot.ts';
import type { EndpointBody } from '../pipeline/endpoint.ts';
import {
  type AnswerStage,
  CONTINUE,
  type Stage,
  type StageOutcome,
  whenAssembled,
} from '../pipeline/stage.ts';
import type { StreamEvent } from '../providers/types.ts';
import { parseCacheControl } from './cache-control.ts';
import { responseCacheKey } from './cache-key.ts';
import { RESPONSE_CACHE_STATUS } from './cache-status.ts';

/** The answer header (DESIGN.md section 5, Response cache). */
const CACHE_HEADER = 'x-gateway-cache';

const STAGE_NAME = 'response-cache';

export interface ResponseCacheOptions {
  cache: CacheStore;
  ttlMs: number;
  /** Answers larger than this (UTF-8 bytes of their JSON) are served but not stored. */
  maxEntryBytes: number;
  logger: Logger;
}

/** What the lookup decided for a call, for the write once its answer is known. */
interface PendingWrite {
  key: string;
  /** The public model the key was made for: an answer from a fallback model is not stored under it. */
  publicModel: string;
}

/** A call's lookup, begun before admission so the two cache-store round trips overlap. */
interface Lookup extends PendingWrite {
  /** The body the key was made from: an extension's `beforeUpstream` may replace it after the prefetch. */
  body: EndpointBody;
  noStore: boolean;
  /** The entry being read; null under `Cache-Control: no-cache`. Never rejects. */
  entry: Promise<string | null> | null;
}

/** The lookup the prefetch began, for the lookup stage to await. */
const PREFETCHED = callSlot<Lookup>(`${STAGE_NAME}.lookup`);
/** Set by the lookup on a miss the answer of which is to be stored. */
const PENDING_WRITE = callSlot<PendingWrite>(`${STAGE_NAME}.write`);

/**
 * The exact-match response cache (DESIGN.md section 5): a call-level stage that answers a hit
 * before routing, and an answer stage that stores what a miss was answered. Entries are
 * the answer's JSON text in the endpoint's format; a streamed request is answered from one by
 * replaying it as SSE, and a streamed answer is assembled into one. A cache store that fails
 * turns the cache off for the call (the call is served from upstream), never fails it.
 */
export class ResponseCache {
  readonly #options: ResponseCacheOptions;
  #storeFailing = false;

  constructor(options: ResponseCacheOptions) {
    this.#options = options;
  }

  /**
   * Starts the lookup and goes on at once: it goes before the limits stage, so the entry is read
   * while the call is admitted, and a hit waits on one round trip, not two in turn. A call the
   * limits refuse has read an entry for nothing, which costs nothing but the read.
   */
  readonly prefetch: Stage = {
    name: `${STAGE_NAME}.prefetch`,
    run: (ctx) => {
      const lookup = this.#begin(ctx);
      if (lookup !== null) PREFETCHED.set(ctx, lookup);
      return CONTINUE;
    },
  };

  /** Answers a hit; marks a miss (or a no-cache call) for the write of its answer. */
  readonly stage: Stage = { name: STAGE_NAME, run: (ctx) => this.#lookup(ctx) };

  /**
   * Stores the upstream answer of a call the lookup marked for it (a miss under the model the key
   * was made for): a JSON answer at once, a stream once it ended whole.
   */
  readonly store: AnswerStage = {
    name: `${STAGE_NAME}.store`,
    run: (ctx, result, source) => {
      const pending = PENDING_WRITE.get(ctx);
      if (source !== 'route' || pending === undefined || pending.publicModel !== ctx.publicModel) {
        return result;
      }
      if (result.kind === 'json') {
        if (result.textContentType !== undefined) return result;
        // Serialised once: the text stored is the text the client is sent (writeJson takes `json`).
        const json = result.json === undefined ? JSON.stringify(result.answer) : answerJsonText(result.json);
        this.#write(pending.key, json);
        // `answer` named: a passed-on answer's getter is its prototype's, which a spread leaves out.
        return { ...result, answer: result.answer, json };
      }
      whenAssembled(ctx, (answer) => {
        if (!ctx.signal.aborted) this.#write(pending.key, JSON.stringify(answer));
      });
      return result;
    },
  };

  async #lookup(ctx: CallContext): Promise<StageOutcome> {
    const prefetched = PREFETCHED.get(ctx);
    const lookup =
      prefetched?.publicModel === ctx.publicModel && prefetched.body === ctx.body
        ? prefetched
        : this.#begin(ctx);
    if (lookup === null) return this.#status(ctx, 'bypass');
    if (!lookup.noStore) PENDING_WRITE.set(ctx, lookup);
    if (lookup.entry === null) return this.#status(ctx, 'bypass');
    const entry = await lookup.entry;
    const result = entry === null ? null : hitResult(ctx, entry);
    if (result === null) return this.#status(ctx, 'miss');
    PENDING_WRITE.delete(ctx);
    RESPONSE_CACHE_STATUS.set(ctx, 'hit');
    ctx.responseHeaders[CACHE_HEADER] = 'hit';
    return { kind: 'respond', result };
  }

  /** The call's key and the read of its entry; null for an operation that is not cached. */
  #begin(ctx: CallContext): Lookup | null {
    if (!OPERATION_SPECS[ctx.endpoint.operation].cacheable) return null;
    const directives = parseCacheControl(ctx.cacheControl);
    const key = responseCacheKey(ctx.endpoint.operation, ctx.publicModel, ctx.body, ctx.clientHeaders);
    return {
      key,
      publicModel: ctx.publicModel,
      body: ctx.body,
      noStore: directives.noStore,
      entry: directives.noCache ? null : this.#read(key),
    };
  }

  #status(ctx: CallContext, status: 'miss' | 'bypass'): StageOutcome {
    RESPONSE_CACHE_STATUS.set(ctx, status);
    ctx.responseHeaders[CACHE_HEADER] = status;
    return CONTINUE;
  }

  async #read(key: string): Promise<string | null> {
    try {
      const entry = await this.#options.cache.get(key);
      this.#recovered();
      return entry;
    } catch (error) {
      this.#failed(error);
      return null;
    }
  }

  #write(key: string, json: string): void {
    if (!fitsEntry(json, this.#options.maxEntryBytes)) return;
    this.#options.cache.set(key, json, this.#options.ttlMs).then(
      () => this.#recovered(),
      (error: unknown) => this.#failed(error),
    );
  }

  /** One warning when the store starts failing, one line when it answers again: not one per call. */
  #failed(error: unknown): void {
    if (this.#storeFailing) return;
    this.#storeFailing = true;
    this.#options.logger.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'response cache: the cache store failed; calls are served from upstream until it answers',
    );
  }

  #recovered(): void {
    if (!this.#storeFailing) return;
    this.#storeFailing = false;
    this.#options.logger.info('response cache: the cache store answers again');
  }
}

/**
 * The answer of a hit in the form the call asks for; null when the entry cannot serve it (not
 * JSON: an entry written by something else is a miss, and is overwritten by the fresh answer).
 */
function hitResult(ctx: CallContext, entry: string): AttemptResult | null {
  let answer: unknown;
  try {
    answer = JSON.parse(entry);
  } catch {
    return null;
  }
  if (answer === null || typeof answer !== 'object') return null;
  if (!ctx.stream) return { kind: 'json', answer, json: entry, usage: null };
  const events = ctx.endpoint.format?.replay(answer, ctx.body) ?? null;
  if (events === null) return null;
  return { kind: 'stream', events: oneBatch(events), usage: () => null, firstByteAtMs: () => null };
}

/** A UTF-8 character takes at most three bytes per UTF-16 unit: most answers need no byte count. */
function fitsEntry(json: string, maxBytes: number): boolean {
  return json.length * 3 <= maxBytes || Buffer.byteLength(json) <= maxBytes;
}

async function* oneBatch(events: readonly StreamEvent[]): AsyncGenerator<readonly StreamEvent[]> {
  yield events;
}
