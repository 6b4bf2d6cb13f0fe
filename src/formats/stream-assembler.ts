/**
 * The JSON answer a plain call would have received, assembled from the events a streamed call sent
 * its client (DESIGN.md section 5, Response cache), so that a streamed answer can be stored too.
 *
 * The events come from the decoders (which validated the upstream's) or from the translators (which
 * built them), so each is read with cheap guards rather than a second zod check per event (that
 * check is a measurable share of a stream's CPU, docs/decisions/hot-path.md); what assembly cannot read
 * makes it give up. An answer that might be wrong is worse than none: it would be served again.
 *
 * Here: the AnswerAssembler contract (ClientFormat.createAssembler) and the StreamAssembler base
 * every format's assembler (formats/<name>/assembly.ts) extends, with the Progress a stream makes
 * and its helpers.
 */
import type { StreamEvent } from './stream-event.ts';
import type { Usage } from './usage.ts';

export interface AnswerAssembler {
  /** Every event the client was sent, in order. Must never throw on odd input: it just gives up (answer() returns null). */
  push(event: StreamEvent): void;
  /**
   * The JSON answer of the whole stream, or null when the stream was incomplete (no terminal event)
   * or could not be assembled. `streamUsage`: the usage the decoder read, for a stream whose
   * client was not sent it (a chat stream without `stream_options.include_usage`).
   */
  answer(streamUsage?: Usage | null): unknown | null;
}

/** Where a stream stands after an event: still going, ended whole, or beyond assembling. */
export type Progress = 'open' | 'complete' | 'failed';

/** What every assembler shares: nothing is read after the end or a failure, and nothing throws. */
export abstract class StreamAssembler implements AnswerAssembler {
  #progress: Progress = 'open';

  push(event: StreamEvent): void {
    if (this.#progress !== 'open') return;
    try {
      this.#progress = this.apply(event);
    } catch {
      // Assembly runs inside the client's stream: a shape the guards missed costs the cache entry,
      // never the stream.
      this.#progress = 'failed';
    }
  }

  answer(streamUsage: Usage | null = null): unknown | null {
    if (this.#progress !== 'complete') return null;
    try {
      return this.build(streamUsage);
    } catch {
      return null;
    }
  }

  /** Reads one event; `complete` at the stream's terminal event. */
  protected abstract apply(event: StreamEvent): Progress;
  /** The answer of a stream that reached its terminal event; null when it cannot be made whole. */
  protected abstract build(streamUsage: Usage | null): unknown | null;
}

/** `'open'` while `ok`, else `'failed'`. */
export function openIf(ok: boolean): Progress {
  return ok ? 'open' : 'failed';
}
