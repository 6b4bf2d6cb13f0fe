/**
 * The deepest nesting of objects and arrays a JSON body may have. Far above any real request (a
 * tool's JSON schema is a few levels), far below what recursive code downstream (translators,
 * canonical JSON, the database driver) can walk without overflowing the stack.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * True when `value` nests objects and arrays deeper than `maxDepth`. Recursive but bounded: it
 * stops at `maxDepth + 1` levels, so it cannot overflow the stack; it allocates nothing per node
 * (docs/decisions/hot-path.md, JSON depth bound).
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  return exceeds(value, maxDepth);
}

/** `levelsLeft`: how many more levels of objects and arrays `node` may open, itself included. */
function exceeds(node: unknown, levelsLeft: number): boolean {
  if (typeof node !== 'object' || node === null) return false;
  if (levelsLeft === 0) return true;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) if (exceeds(node[i], levelsLeft - 1)) return true;
    return false;
  }
  // A parsed JSON object's enumerable keys are its own (the parser refuses `__proto__`).
  for (const key in node) if (exceeds((node as Record<string, unknown>)[key], levelsLeft - 1)) return true;
  return false;
}
