const LF = 0x0a;
const CR = 0x0d;

/**
 * Where the first event of a stream's bytes ends: just after its first blank line (`\n\n`, or
 * `\n\r\n` for CRLF lines), the end of an SSE event; the chunk's length when there is none.
 * Splitting there is always safe, since stream decoders take bytes split anywhere: a binary
 * format (Bedrock's event stream) may be split at a meaningless place, which only means its first
 * event does not travel alone.
 */
export function endOfFirstEvent(chunk: Uint8Array): number {
  let newline = chunk.indexOf(LF);
  while (newline !== -1) {
    if (chunk[newline + 1] === LF) return newline + 2;
    if (chunk[newline + 1] === CR && chunk[newline + 2] === LF) return newline + 3;
    newline = chunk.indexOf(LF, newline + 1);
  }
  return chunk.length;
}
