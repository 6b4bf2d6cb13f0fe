/**
 * Record rows held as UTF-8 outside the V8 heap, from the end of a call until its batch is written.
 *
 * A row waits up to a flush interval for its batch and for the write before it, so a row held as a
 * string lived through two young collections and was promoted, and V8 sizes the old generation's
 * next limit by how fast it fills (docs/decisions/hot-path.md, "Record rows held off the heap",
 * has what it cost). Here a row's bytes go into a chunk, and a chunk is reused once every row put
 * in it was released, so steady load writes into the same few chunks and leaves nothing to collect.
 *
 * A released row is never read again: the queue releases a row once its batch is written (or the
 * row could not be queued), never while a write may still read it.
 */

/** A chunk's size: about 250 rows of a call. */
const CHUNK_BYTES = 256 * 1024;
/** A row larger than this gets a chunk of its own, dropped when released. */
const LARGEST_SHARED_ROW = CHUNK_BYTES / 4;
/** Empty chunks kept for reuse beyond the current one; the rest are left to the collector. */
const SPARE_CHUNKS = 4;

export interface RowChunk {
  readonly bytes: Buffer;
  used: number;
  /** Rows put here and not released yet. */
  live: number;
}

/** One row's JSON, as UTF-8 bytes `start..end` of its chunk. */
export class HeldRow {
  readonly chunk: RowChunk;
  readonly start: number;
  readonly end: number;
  /** A second release must not count against the chunk again. */
  released = false;

  constructor(chunk: RowChunk, start: number, end: number) {
    this.chunk = chunk;
    this.start = start;
    this.end = end;
  }

  get byteLength(): number {
    return this.end - this.start;
  }

  /** Copies the bytes into `target` at `offset`; returns how many. */
  copyTo(target: Buffer, offset: number): number {
    return this.chunk.bytes.copy(target, offset, this.start, this.end);
  }
}

function newChunk(size: number): RowChunk {
  return { bytes: Buffer.allocUnsafeSlow(size), used: 0, live: 0 };
}

export class HeldRows {
  #current = newChunk(CHUNK_BYTES);
  readonly #spare: RowChunk[] = [];

  /** Holds a row's JSON (well-formed UTF-16, as `JSON.stringify` makes it, so nothing is lost). */
  hold(json: string): HeldRow {
    let chunk = this.#current;
    const room = chunk.bytes.length - chunk.used;
    // UTF-8 takes at most three bytes per UTF-16 code unit: most rows need no exact length.
    if (json.length * 3 > room) {
      const size = Buffer.byteLength(json);
      if (size > LARGEST_SHARED_ROW) return this.#holdAlone(json, size);
      if (size > room) chunk = this.#nextChunk();
    }
    const start = chunk.used;
    chunk.used += chunk.bytes.write(json, start);
    chunk.live += 1;
    return new HeldRow(chunk, start, chunk.used);
  }

  release(row: HeldRow): void {
    if (row.released) return;
    row.released = true;
    const chunk = row.chunk;
    chunk.live -= 1;
    if (chunk.live > 0) return;
    if (chunk === this.#current) {
      chunk.used = 0;
    } else if (chunk.bytes.length === CHUNK_BYTES && this.#spare.length < SPARE_CHUNKS) {
      chunk.used = 0;
      this.#spare.push(chunk);
    }
  }

  #holdAlone(json: string, size: number): HeldRow {
    const chunk = newChunk(size);
    chunk.used = chunk.bytes.write(json, 0);
    chunk.live = 1;
    return new HeldRow(chunk, 0, chunk.used);
  }

  #nextChunk(): RowChunk {
    this.#current = this.#spare.pop() ?? newChunk(CHUNK_BYTES);
    return this.#current;
  }
}

/**
 * The rows as one JSON array in UTF-8: the `$n::text::json` parameter of a batch's INSERT. pg
 * sends a Buffer parameter in binary format, which for `text` is the text's UTF-8, so Postgres
 * reads the same value as from the string, and the batch is never one large string on the heap.
 * A row given as a string (a start row, serialized with its batch) is encoded here.
 */
export function recordsetBytes(rows: readonly (HeldRow | string)[]): Buffer {
  let size = rows.length === 0 ? 2 : rows.length + 1;
  for (const row of rows) size += typeof row === 'string' ? Buffer.byteLength(row) : row.byteLength;
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  bytes[at++] = 0x5b; // [
  for (let index = 0; index < rows.length; index += 1) {
    if (index > 0) bytes[at++] = 0x2c; // ,
    const row = rows[index];
    at += typeof row === 'string' ? bytes.write(row, at) : row.copyTo(bytes, at);
  }
  bytes[at] = 0x5d; // ]
  return bytes;
}
