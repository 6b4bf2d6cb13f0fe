import { isUtf8 } from 'node:buffer';

/** Whether `byte` continues a UTF-8 sequence (10xxxxxx) rather than starting one. */
export function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** How many bytes the UTF-8 sequence led by `byte` takes; 1 for a byte that leads none (isUtf8 then judges it). */
export function sequenceLength(byte: number): number {
  if (byte >= 0xf8) return 1;
  if (byte >= 0xf0) return 4;
  if (byte >= 0xe0) return 3;
  return byte >= 0xc0 ? 2 : 1;
}

/**
 * Where the character that `text` ends in the middle of starts, looked for at or after `from`;
 * `text.length` when its last character is whole.
 */
export function cutCharacterAt(text: Buffer, from: number): number {
  const last = Math.max(from, text.length - 3);
  for (let i = text.length - 1; i >= last; i--) {
    const byte = text[i];
    if (!isContinuation(byte)) return i + sequenceLength(byte) > text.length ? i : text.length;
  }
  return text.length;
}

/**
 * Whether the text that `chunks` make one after the other is valid UTF-8, as `isUtf8` of their
 * join says, checked in place: each chunk whole but for a character cut at its end, which is
 * checked with the bytes of the next chunk that finish it (docs/decisions/hot-path.md, Answer
 * chunks never joined).
 */
export function isUtf8Chunks(chunks: readonly Buffer[]): boolean {
  /** The start of a character the chunks so far ended in the middle of. */
  let cut: Buffer | null = null;
  for (const chunk of chunks) {
    let from = 0;
    if (cut !== null) {
      from = sequenceLength(cut[0]) - cut.length;
      if (chunk.length < from) {
        cut = Buffer.concat([cut, chunk]);
        continue;
      }
      if (!isUtf8(Buffer.concat([cut, chunk.subarray(0, from)]))) return false;
      cut = null;
    }
    const end = cutCharacterAt(chunk, from);
    if (!isUtf8(from === 0 && end === chunk.length ? chunk : chunk.subarray(from, end))) return false;
    if (end < chunk.length) cut = chunk.subarray(end);
  }
  return cut === null;
}
