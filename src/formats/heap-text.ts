import { cutCharacterAt, isContinuation, sequenceLength } from './utf8-chunks.ts';

/**
 * Node.js decodes a buffer of about a megabyte or more (its `EXTERN_APEX`, 0xFBEE9 bytes) into an
 * external string: a copy outside the V8 heap. That memory counts as external, and the external
 * memory added since the last full collection starts the next one; young external strings and
 * buffers are freed only when a scavenge finds them dead, and a large prompt's strings and
 * buffers leave the young generation too empty for one to come. Decoded in pieces under that size
 * and joined, the text is on the heap, where it fills the young generation and brings the
 * scavenge that frees the call's buffers too (docs/decisions/hot-path.md, Large texts decoded
 * onto the heap).
 */
const PIECE_BYTES = 0xfbee8;

const continues = (byte: number | undefined) => byte !== undefined && isContinuation(byte);

/**
 * `bytes.toString('utf8')`, on the V8 heap. Each cut is moved back to the start of the character
 * it would split (at most three continuation bytes); the decoder holds no state across a byte
 * that is not a continuation, so the pieces decode, invalid sequences included, as the whole does.
 * `pieceBytes` is at least 4, the longest character.
 */
export function heapText(bytes: Buffer, pieceBytes = PIECE_BYTES): string {
  if (bytes.length <= pieceBytes) return bytes.toString('utf8');
  let text = '';
  for (let at = 0; at < bytes.length; ) {
    const limit = Math.min(at + pieceBytes, bytes.length);
    let end = limit;
    while (end > limit - 3 && end > at + 1 && continues(bytes[end])) end--;
    // Still a continuation: the byte at the cut belongs to no character, so any cut there is right.
    if (continues(bytes[end])) end = limit;
    text += bytes.toString('utf8', at, end);
    at = end;
  }
  return text;
}

/**
 * `heapText` of the bytes `chunks` make one after the other, decoded chunk by chunk, never
 * joined (docs/decisions/hot-path.md, Request chunks never joined). A chunk is cut before a
 * character it ends in the middle of, and that character is decoded with the continuation bytes
 * of the next chunk that finish it: every cut falls where the decoder holds no state (after a
 * whole character, or before a byte that is not a continuation), so invalid sequences decode as
 * in the whole text too.
 */
export function chunksText(chunks: readonly Buffer[]): string {
  if (chunks.length === 1) return heapText(chunks[0]);
  let text = '';
  /** The start of a character the chunks so far ended in the middle of. */
  let cut: Buffer | null = null;
  for (const chunk of chunks) {
    let from = 0;
    if (cut !== null) {
      const wanted = sequenceLength(cut[0]) - cut.length;
      while (from < wanted && from < chunk.length && isContinuation(chunk[from])) from++;
      if (from === chunk.length && from < wanted) {
        cut = Buffer.concat([cut, chunk]);
        continue;
      }
      text += Buffer.concat([cut, chunk.subarray(0, from)]).toString('utf8');
      cut = null;
    }
    const end = cutCharacterAt(chunk, from);
    text += heapText(chunk.subarray(from, end));
    if (end < chunk.length) cut = chunk.subarray(end);
  }
  return cut === null ? text : text + cut.toString('utf8');
}
