import type { Logger } from '../diagnostics/logger.ts';
import type { AlertEvent } from './alert-event.ts';
import type { AttemptFailure } from './webhook-sender.ts';

export interface AlertQueueSettings {
  /** Events held at most; a push beyond it drops the oldest queued event. */
  capacity: number;
  /** Attempts per event, the first included. */
  maxAttempts: number;
  /** Wait before the first retry; doubled before each next one, up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  /** Bound on one attempt: a receiver that hangs costs this, then the attempt counts as failed. */
  attemptTimeoutMs: number;
  /** Period of the one summary line about dropped events (never one line per event). */
  dropReportIntervalMs: number;
}

export const ALERT_QUEUE_DEFAULTS: Readonly<AlertQueueSettings> = Object.freeze({
  capacity: 1_000,
  maxAttempts: 5,
  backoffMs: 1_000,
  maxBackoffMs: 30_000,
  attemptTimeoutMs: 10_000,
  dropReportIntervalMs: 10_000,
});

export interface AlertQueueOptions {
  send(event: AlertEvent, signal: AbortSignal): Promise<AttemptFailure | null>;
  logger: Logger;
  settings?: Partial<AlertQueueSettings>;
}

/**
 * Delivers alert events off the call path: `push` never waits and never throws; one worker sends
 * the queued events in order, each until the receiver takes it or `maxAttempts` failed, waiting
 * `backoffMs` (doubling) between attempts. While the receiver is away the queue fills; when full,
 * the oldest event goes, as the newest say most about the present. `close` gives each queued event
 * one more attempt within its deadline, then abandons the rest; both losses are logged as counts.
 */
export class AlertQueue {
  readonly #send: AlertQueueOptions['send'];
  readonly #logger: Logger;
  readonly #settings: AlertQueueSettings;
  readonly #events: AlertEvent[] = [];
  /** Aborts the attempt and the backoff in progress when the shutdown deadline is reached. */
  readonly #abandon = new AbortController();
  #closing = false;
  #dropped = 0;
  #worker: Promise<void> | undefined;
  #wakeWorker: (() => void) | undefined;
  readonly #reportTimer: NodeJS.Timeout;

  constructor(options: AlertQueueOptions) {
    this.#send = options.send;
    this.#logger = options.logger;
    this.#settings = { ...ALERT_QUEUE_DEFAULTS, ...options.settings };
    this.#reportTimer = setInterval(() => this.#reportDrops(), this.#settings.dropReportIntervalMs).unref();
  }

  /** Events waiting, the one being sent included. */
  get size(): number {
    return this.#events.length;
  }

  push(event: AlertEvent): void {
    if (this.#closing) {
      this.#dropped += 1;
      return;
    }
    if (this.#events.length >= this.#settings.capacity) {
      // The head may be mid-delivery; the worker notices it is gone and moves on.
      this.#events.shift();
      this.#dropped += 1;
    }
    this.#events.push(event);
    this.#worker ??= this.#work().finally(() => {
      this.#worker = undefined;
    });
  }

  /**
   * Stops taking events and sends what is queued, one attempt each and no backoff, until
   * `deadlineMs` from now; then aborts the attempt in flight and logs what was abandoned.
   */
  async close(deadlineMs: number): Promise<void> {
    this.#closing = true;
    clearInterval(this.#reportTimer);
    this.#wakeWorker?.();
    const timer = setTimeout(() => this.#abandon.abort(), Math.max(0, deadlineMs));
    try {
      await this.#worker;
    } finally {
      clearTimeout(timer);
    }
    if (this.#events.length > 0) {
      this.#logger.warn(
        { alerts: this.#events.length, types: [...new Set(this.#events.map((e) => e.type))] },
        'alert webhook: events abandoned at shutdown',
      );
      this.#events.length = 0;
    }
    this.#reportDrops();
  }

  async #work(): Promise<void> {
    while (this.#events.length > 0 && !this.#abandon.signal.aborted) {
      const event = this.#events[0];
      await this.#deliver(event);
      // Abandoned mid-attempt: it stays queued, to be counted with what `close` abandons.
      if (this.#abandon.signal.aborted) break;
      if (this.#events[0] === event) this.#events.shift();
    }
  }

  async #deliver(event: AlertEvent): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      const signal = AbortSignal.any([
        AbortSignal.timeout(this.#settings.attemptTimeoutMs),
        this.#abandon.signal,
      ]);
      const failure = await this.#send(event, signal);
      if (failure === null || this.#abandon.signal.aborted) return;
      const retry = attempt < this.#settings.maxAttempts && !this.#closing && this.#events[0] === event;
      this.#logger.warn(
        { alert: event.type, eventId: event.id, attempt, ...failure, retry },
        retry ? 'alert webhook attempt failed; retrying' : 'alert webhook delivery failed; event dropped',
      );
      if (!retry) return;
      await this.#pause(Math.min(this.#settings.backoffMs * 2 ** (attempt - 1), this.#settings.maxBackoffMs));
    }
  }

  /** Waits `ms`, or less when shutdown begins. */
  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wakeWorker = () => {
        this.#wakeWorker = undefined;
        done();
      };
    });
  }

  #reportDrops(): void {
    if (this.#dropped === 0) return;
    this.#logger.warn(
      { alerts: this.#dropped, capacity: this.#settings.capacity },
      'alert webhook: events dropped (queue full or shutting down)',
    );
    this.#dropped = 0;
  }
}
