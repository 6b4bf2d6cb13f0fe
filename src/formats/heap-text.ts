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

const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

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
    while (end > limit - 3 && end > at + 1 && isContinuation(bytes[end])) end--;
    // Still a continuation: the byte at the cut belongs to no character, so any cut there is right.
    if (isContinuation(bytes[end])) end = limit;
    text += bytes.toString('utf8', at, end);
    at = end;
  }
  return text;
}
