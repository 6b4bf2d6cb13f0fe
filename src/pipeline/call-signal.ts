/**
 * What a call's code reads of an abort signal: whether it fired, why, and a listener for when it
 * does. An AbortSignal is one; so is a CallSignal, and undici takes either as a request's
 * `signal` (it only calls `addEventListener` and `removeEventListener`, lib/core/util.js).
 */
export interface AbortSource {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * An abort signal of the gateway's own for the client's side of a call and each upstream attempt:
 * an AbortController and each listener on its signal go through Node's EventTarget, which costs
 * many times this array (docs/decisions/hot-path.md, Calls aborted by a signal of our own). Its
 * listeners run once, in the order they were added, when it aborts.
 */
export class CallSignal implements AbortSource {
  #reason: unknown = undefined;
  #aborted = false;
  #listeners: (() => void)[] = [];

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.#aborted) this.#listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.#listeners.indexOf(listener);
    if (at !== -1) this.#listeners.splice(at, 1);
  }

  /** Aborts once; without a reason, with the AbortError an AbortController gives. */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts, whichever comes first. */
export function delayUnlessAborted(ms: number, signal: AbortSource): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
