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
 * pending buffer for every line, so its cost grows with the batch (docs/decisions/hot-path.md).
 * Here a line is encoded at once into the batch's buffer, one of two that take turns (one filling
 * while the other is written), so the line's string dies young: held until its batch went out, a
 * line outlived two young collections under load and was promoted (docs/decisions/hot-path.md,
 * "Log lines encoded when written"). A line that does not fit, or comes after one that did not,
 * waits as a string. Only a SIGKILL loses lines: `flush` writes what is queued, and a plain exit
 * writes the rest synchronously.
 */
export class BatchedLineWriter {
  readonly #fd: number;
  readonly #options: BatchedLineWriterOptions;
  /** The batch's buffer: its first `#filled` bytes are lines, older than any in `#queued`. */
  #bytes: Buffer;
  #filled = 0;
  /** The other buffer, when no write holds it. */
  #spare: Buffer | null;
  /** Lines that did not fit in `#bytes`, in order. */
  #queued: string[] = [];
  #queuedChars = 0;
  #dropped = 0;
  /** What the write in flight has yet to write (null when none is). */
  #inFlight: Buffer | null = null;
  /** The buffer of `#bytes` the write in flight holds, given back as the spare when it ends. */
  #sending: Buffer | null = null;
  #timer: NodeJS.Timeout | null = null;
  #flushWaiters: (() => void)[] = [];
  /** Set when the descriptor failed for good (closed pipe): lines are dropped from then on. */
  #failed = false;
  readonly #onExit = () => this.flushSync();

  constructor(fd: number, options: BatchedLineWriterOptions) {
    this.#fd = fd;
    this.#options = options;
    // Most lines are ASCII: a batch of `batchChars` characters fits twice over.
    this.#bytes = Buffer.allocUnsafeSlow(options.batchChars * 2);
    this.#spare = Buffer.allocUnsafeSlow(options.batchChars * 2);
    process.once('exit', this.#onExit);
  }

  /** pino's destination contract: always accepts (a full queue drops and counts instead). */
  write(line: string): boolean {
    if (this.#failed) return true;
    if (this.#queuedChars + line.length > this.#options.maxQueuedChars) {
      this.#dropped += 1;
      return true;
    }
    if (!this.#encode(line)) this.#queued.push(line);
    this.#queuedChars += line.length;
    if (this.#inFlight !== null) return true;
    if (this.#queuedChars >= this.#options.batchChars) this.#writeQueued();
    else this.#scheduleWrite();
    return true;
  }

  /** Writes everything queued now; `done` runs once it is written (or dropped, if stdout failed). */
  flush(done: (error?: Error) => void = () => {}): void {
    if (this.#inFlight === null && this.#queuedChars === 0 && this.#dropped === 0) {
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
    const inFlight = this.#inFlight;
    const rest = this.#takeQueued();
    const pending = inFlight === null ? rest : Buffer.concat([inFlight, rest]);
    this.#inFlight = null;
    try {
      for (let offset = 0; offset < pending.length; ) offset += writeSync(this.#fd, pending, offset);
    } catch {
      this.#failed = true;
    }
  }

  /** Encodes `line` after the batch's bytes if nothing waits as a string and it fits; says whether it did. */
  #encode(line: string): boolean {
    if (this.#queued.length > 0) return false;
    const room = this.#bytes.length - this.#filled;
    // UTF-8 takes at most three bytes per UTF-16 code unit: most lines need no exact length.
    if (line.length * 3 > room && Buffer.byteLength(line) > room) return false;
    this.#filled += this.#bytes.write(line, this.#filled);
    return true;
  }

  /**
   * What is queued, in order, as one buffer: the batch's own bytes when nothing else waits (the
   * other buffer becomes the batch's, and `#sent` gives this one back), else a copy.
   */
  #takeQueued(): Buffer {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const filled = this.#bytes.subarray(0, this.#filled);
    let taken: Buffer;
    if (this.#dropped === 0 && this.#queued.length === 0) {
      taken = filled;
      this.#sending = this.#bytes;
      this.#bytes = this.#spare ?? Buffer.allocUnsafeSlow(this.#bytes.length);
      this.#spare = null;
    } else {
      const dropped = this.#dropped === 0 ? '' : droppedLine(this.#dropped);
      taken = Buffer.concat([Buffer.from(dropped), filled, Buffer.from(this.#queued.join(''))]);
    }
    this.#filled = 0;
    this.#queued = [];
    this.#queuedChars = 0;
    this.#dropped = 0;
    return taken;
  }

  #writeQueued(): void {
    this.#send(this.#takeQueued());
  }

  /** The write in flight ended (or was taken over at exit): its buffer can be filled again. */
  #sent(): void {
    this.#inFlight = null;
    if (this.#sending !== null) this.#spare ??= this.#sending;
    this.#sending = null;
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
    this.#sent();
    if (this.#queuedChars >= this.#options.batchChars) this.#writeQueued();
    else this.#idle();
  }

  /**
   * Nothing in flight: what is queued goes out now if a flush waits for it, else by the timer;
   * the flushes waiting are done once nothing is queued.
   */
  #idle(): void {
    this.#sent();
    if (this.#queuedChars > 0) {
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
