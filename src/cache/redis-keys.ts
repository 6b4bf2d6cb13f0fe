/**
 * Key layout of the Redis cache store. Redis Cluster hashes only the text between the first
 * `{` and the next `}` (when not empty), so the prefix goes before the key and never moves the
 * tag, and the keys of one sliding log share their logical key's tag: one slot, one script.
 */
export function prefixedKey(prefix: string, key: string): string {
  return prefix + key;
}

/** The log (sorted set), cost (hash) and sum keys of a sliding window. */
export function windowKeys(prefix: string, key: string): [log: string, cost: string, sum: string] {
  const base = prefix + withHashTag(key);
  return [`${base}:log`, `${base}:cost`, `${base}:sum`];
}

/**
 * The sorted set of a call count (the request window of `admitCall`). Its own name, not the
 * sliding log's `:log`: a replica of an earlier release keeps a cost hash and a sum beside that
 * log, which a count pruning it would leave wrong (docs/operations.md, Running in production).
 */
export function callCountKey(prefix: string, key: string): string {
  return `${prefix + withHashTag(key)}:calls`;
}

/** The key itself when it has a hash tag, otherwise the whole key made the tag. */
export function withHashTag(key: string): string {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return key;
  }
  return `{${key}}`;
}

/** A prefix with a brace would become (or break) the hash tag of every key. */
export function assertValidKeyPrefix(prefix: string): void {
  if (/[{}]/.test(prefix)) {
    throw new TypeError('keyPrefix must not contain { or }: it would move the Redis Cluster hash tag');
  }
}
