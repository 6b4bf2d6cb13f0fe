import { randomBytes } from 'node:crypto';

/** Ids made under one random part before a new one is drawn (the counter's 8 hex digits). */
const IDS_PER_PREFIX = 0x1_0000_0000;

let processPart = '';
let counter = IDS_PER_PREFIX;

/**
 * Ids the server makes for records (DESIGN.md section 5: `dep_…`, `key_…`): prefix, 16 hex of a
 * random part drawn once per process (and again every 2^32 ids), then an 8-hex counter. Unique
 * across replicas and restarts by the 64 random bits, and cheap: one `randomBytes` call per
 * process instead of one per record (docs/decisions/hot-path.md). Ids of one process sort in the order they were made; nothing relies on
 * an order across processes (pages are ordered by start time first).
 */
export function recordId(prefix: 'log' | 'op' | 'smp' | 'aud' | 'evt'): string {
  if (counter === IDS_PER_PREFIX) {
    processPart = randomBytes(8).toString('hex');
    counter = 0;
  }
  const sequence = counter.toString(16).padStart(8, '0');
  counter += 1;
  return `${prefix}_${processPart}${sequence}`;
}
