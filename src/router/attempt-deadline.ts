import { GatewayError } from '../errors/gateway-error.ts';
import { type AbortSource, CallSignal } from '../pipeline/call-signal.ts';
import { ClientAbortedError } from '../upstream/upstream-failure.ts';

/**
 * The total timeout of one attempt (`timeouts.totalMs`), body or stream included, as a signal
 * combined with the client's: a listener on the client's signal, removed when the attempt ends,
 * rather than `AbortSignal.any`, whose weak references to every combined signal outlive the
 * call until a full GC (docs/decisions/hot-path.md). The signal is a CallSignal, not an
 * AbortController's. undici reports an aborted signal as the client leaving
 * (upstream-failure.ts), so `explain` tells the two apart: the client's own signal is aborted
 * only when the client left.
 */
export class AttemptDeadline {
  readonly signal = new CallSignal();
  readonly #client: AbortSource;
  readonly #totalMs: number;
  readonly #timer: NodeJS.Timeout;
  #onClientAbort: () => void;
  #drainTimer: NodeJS.Timeout | undefined;
  #expired = false;

  constructor(client: AbortSource, totalMs: number) {
    const signal = this.signal;
    this.#client = client;
    this.#totalMs = totalMs;
    this.#timer = setTimeout(() => {
      this.#expired = true;
      signal.abort(new Error(`attempt exceeded its total timeout of ${totalMs} ms`));
    }, totalMs);
    this.#timer.unref();
    this.#onClientAbort = () => signal.abort(client.reason);
    if (client.aborted) signal.abort(client.reason);
    else client.addEventListener('abort', this.#onClientAbort, { once: true });
  }

  /**
   * Once a stream was handed over: the client leaving cuts the upstream only `drainMs` later,
   * or at the total timeout, whichever comes first.
   */
  outliveClient(drainMs: number): void {
    const client = this.#client;
    client.removeEventListener('abort', this.#onClientAbort);
    this.#onClientAbort = () => {
      this.#drainTimer = setTimeout(() => this.signal.abort(client.reason), drainMs);
      this.#drainTimer.unref();
    };
    if (client.aborted) this.#onClientAbort();
    else client.addEventListener('abort', this.#onClientAbort, { once: true });
  }

  clear(): void {
    clearTimeout(this.#timer);
    clearTimeout(this.#drainTimer);
    this.#client.removeEventListener('abort', this.#onClientAbort);
  }

  /** The error to report for what the attempt threw. */
  explain(error: unknown): unknown {
    if (this.#client.aborted) return error instanceof ClientAbortedError ? error : new ClientAbortedError();
    if (this.#expired && !(error instanceof GatewayError && error.code === 'timeout')) {
      return new GatewayError('timeout', {
        detail: { reason: 'total timeout', totalMs: this.#totalMs },
        cause: error,
      });
    }
    return error;
  }
}
