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
  return walk(value, maxDepth, false) === 'too-deep';
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
  return walk(value, maxDepth, true);
}

/**
 * `levelsLeft`: how many more levels of objects and arrays `node` may open, itself included;
 * `keys`: whether the prototype-poisoning keys are refused too.
 */
function walk(node: unknown, levelsLeft: number, keys: boolean): UnsafeJson | null {
  if (typeof node !== 'object' || node === null) return null;
  if (levelsLeft === 0) return 'too-deep';
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const found = walk(node[i], levelsLeft - 1, keys);
      if (found !== null) return found;
    }
    return null;
  }
  // JSON.parse makes `__proto__` an own, enumerable data key: for-in sees it.
  for (const key in node) {
    const child = (node as Record<string, unknown>)[key];
    if (keys && (key === '__proto__' || (key === 'constructor' && hasPrototypeKey(child))))
      return 'prototype-key';
    const found = walk(child, levelsLeft - 1, keys);
    if (found !== null) return found;
  }
  return null;
}

function hasPrototypeKey(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype');
}
