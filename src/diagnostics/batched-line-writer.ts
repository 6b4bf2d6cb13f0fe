import { write as fsWrite, writeSync } from 'node:fs';
import { isoTime } from './iso-time.ts';

export interface BatchedLineWriterOptions {
  /** Lines collect until about this many characters are queued ... */
  batchChars: number;
  /** ... or this long passed since the first of them, then go out in one write. */
  maxDelayMs: number;
  /**
   * Queued characters beyond which new lines are dropped (and counted, and the count logged once
   * writing resumes): a stalled stdout must not grow the heap without bound.
   */
  maxQueuedChars: number;
}

/** How long to wait before writing again to a full non-blocking pipe. */
const FULL_PIPE_RETRY_MS = 10;

/**
 * The log destination: lines written to a file descriptor asynchronously, many per write. pino's
 * own batching destination (sonic-boom with `minLength`) measures the byte length of its whole
 * pending buffer for every line, so its cost grows with the batch (docs/decisions/hot-path.md). Here a line costs an array push; a batch is joined and encoded once.
 * Only a SIGKILL loses lines: `flush` writes what is queued, and a plain exit writes the rest
 * synchronously.
 */
export class BatchedLineWriter {
  readonly #fd: number;
  readonly #options: BatchedLineWriterOptions;
  #queued: string[] = [];
  #queuedChars = 0;
  #dropped = 0;
  /** What the write in flight has yet to write (null when none is). */
  #inFlight: Buffer | null = null;
  #timer: NodeJS.Timeout | null = null;
  #flushWaiters: (() => void)[] = [];
  /** Set when the descriptor failed for good (closed pipe): lines are dropped from then on. */
  #failed = false;
  readonly #onExit = () => this.flushSync();

  constructor(fd: number, options: BatchedLineWriterOptions) {
    this.#fd = fd;
    this.#options = options;
    process.once('exit', this.#onExit);
  }

  /** pino's destination contract: always accepts (a full queue drops and counts instead). */
  write(line: string): boolean {
    if (this.#failed) return true;
    if (this.#queuedChars + line.length > this.#options.maxQueuedChars) {
      this.#dropped += 1;
      return true;
    }
    this.#queued.push(line);
    this.#queuedChars += line.length;
    if (this.#inFlight !== null) return true;
    if (this.#queuedChars >= this.#options.batchChars) this.#writeQueued();
    else this.#scheduleWrite();
    return true;
  }

  /** Writes everything queued now; `done` runs once it is written (or dropped, if stdout failed). */
  flush(done: (error?: Error) => void = () => {}): void {
    if (this.#inFlight === null && this.#queued.length === 0 && this.#dropped === 0) {
      process.nextTick(done);
      return;
    }
    this.#flushWaiters.push(() => done());
    if (this.#inFlight === null) this.#writeQueued();
  }

  /** Writes the write in flight's remainder and the queue, blocking: only for the process's exit. */
  flushSync(): void {
    process.removeListener('exit', this.#onExit);
    if (this.#failed) return;
    const rest = this.#takeQueued();
    const pending = this.#inFlight === null ? rest : Buffer.concat([this.#inFlight, rest]);
    this.#inFlight = null;
    try {
      for (let offset = 0; offset < pending.length; ) offset += writeSync(this.#fd, pending, offset);
    } catch {
      this.#failed = true;
    }
  }

  #takeQueued(): Buffer {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const dropped = this.#dropped === 0 ? '' : droppedLine(this.#dropped);
    const text = dropped + this.#queued.join('');
    this.#queued = [];
    this.#queuedChars = 0;
    this.#dropped = 0;
    return Buffer.from(text, 'utf8');
  }

  #writeQueued(): void {
    this.#send(this.#takeQueued());
  }

  #send(buffer: Buffer): void {
    if (buffer.length === 0) {
      this.#idle();
      return;
    }
    this.#inFlight = buffer;
    fsWrite(this.#fd, buffer, 0, buffer.length, null, (error, written) => {
      if (this.#inFlight !== buffer) return; // flushSync took it at exit
      if (error?.code === 'EAGAIN') {
        setTimeout(() => this.#send(buffer), FULL_PIPE_RETRY_MS).unref();
      } else if (error) {
        this.#fail();
      } else if (written < buffer.length) {
        this.#send(buffer.subarray(written));
      } else {
        this.#written();
      }
    });
  }

  #scheduleWrite(): void {
    this.#timer ??= setTimeout(() => this.#writeQueued(), this.#options.maxDelayMs).unref();
  }

  #written(): void {
    if (this.#queuedChars >= this.#options.batchChars) this.#writeQueued();
    else this.#idle();
  }

  /**
   * Nothing in flight: what is queued goes out now if a flush waits for it, else by the timer;
   * the flushes waiting are done once nothing is queued.
   */
  #idle(): void {
    this.#inFlight = null;
    if (this.#queued.length > 0) {
      if (this.#flushWaiters.length > 0) {
        this.#writeQueued();
        return;
      }
      this.#scheduleWrite();
    }
    const waiters = this.#flushWaiters;
    this.#flushWaiters = [];
    for (const waiter of waiters) waiter();
  }

  #fail(): void {
    this.#failed = true;
    this.#takeQueued();
    this.#idle();
  }
}

function droppedLine(count: number): string {
  return `${JSON.stringify({
    level: 'warn',
    time: isoTime(Date.now()),
    pid: process.pid,
    dropped: count,
    msg: 'log lines dropped: stdout did not keep up',
  })}\n`;
}
