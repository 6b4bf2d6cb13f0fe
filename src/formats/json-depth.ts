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

/** What is wrong with a parsed JSON body, if anything (`unsafeJson`). */
export type UnsafeJson = 'too-deep' | 'prototype-key';

/**
 * Checks a value fresh from `JSON.parse` in one walk: the depth bound, and the keys that poison a
 * prototype once code merges the object into another (`__proto__` anywhere, a `constructor`
 * holding a `prototype`), which fastify's parser refused by scanning the whole text twice
 * (docs/decisions/hot-path.md, One walk for the body's checks). Null when the value is fine.
 */
export function unsafeJson(value: unknown, maxDepth: number): UnsafeJson | null {
  return unsafe(value, maxDepth);
}

/** `levelsLeft`: how many more levels of objects and arrays `node` may open, itself included. */
function exceeds(node: unknown, levelsLeft: number): boolean {
  if (typeof node !== 'object' || node === null) return false;
  if (levelsLeft === 0) return true;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) if (exceeds(node[i], levelsLeft - 1)) return true;
    return false;
  }
  for (const key in node) if (exceeds((node as Record<string, unknown>)[key], levelsLeft - 1)) return true;
  return false;
}

function unsafe(node: unknown, levelsLeft: number): UnsafeJson | null {
  if (typeof node !== 'object' || node === null) return null;
  if (levelsLeft === 0) return 'too-deep';
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const found = unsafe(node[i], levelsLeft - 1);
      if (found !== null) return found;
    }
    return null;
  }
  // JSON.parse makes `__proto__` an own, enumerable data key: for-in sees it.
  for (const key in node) {
    const child = (node as Record<string, unknown>)[key];
    if (key === '__proto__' || (key === 'constructor' && hasPrototypeKey(child))) return 'prototype-key';
    const found = unsafe(child, levelsLeft - 1);
    if (found !== null) return found;
  }
  return null;
}

function hasPrototypeKey(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype');
}
