import fc from 'fast-check';

/** `bytes` cut at `cuts` (offsets, in any order, repeats and ends allowed): views, empty chunks included. */
export function chunksOf(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [0, ...cuts.map((cut) => Math.min(cut, bytes.length)).sort((a, b) => a - b), bytes.length];
  return at.slice(1).map((end, i) => bytes.subarray(at[i], end));
}

/** Cuts for `chunksOf` in a text of up to `length` bytes: none, a few, or many. */
export function cutsIn(length: number): fc.Arbitrary<number[]> {
  return fc.array(fc.nat({ max: Math.max(length, 0) }), { maxLength: 12 });
}
