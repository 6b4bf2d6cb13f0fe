/**
 * When stored response state expires (SPEC.md, Response state). Variant A: each row carries its
 * own expiry, fixed when it is written (RESPONSES_STATE_RETENTION_DAYS then; a later change
 * applies to new rows). Variant B: a retention window, RESPONSES_STATE_RETENTION_DAYS after
 * `created_at` as the setting is now (a shorter one expires older rows at once). Reads treat an
 * expired row as gone before the GC deletes it, so expiry does not wait on the job.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Variant } from '../config.ts';
import type { Expiry } from '../jobs/retention-job.ts';

export interface ExpiryPolicy {
  variant: Variant;
  retentionDays: number;
}

/** The rows the GC deletes, in the retention job's terms. */
export function expiryOf(policy: ExpiryPolicy): Expiry {
  return policy.variant === 'a'
    ? { table: 'response_states', key: 'id', column: 'expires_at', days: 0 }
    : { table: 'response_states', key: 'id', column: 'created_at', days: policy.retentionDays };
}

/** The read filter: rows that have not expired. */
export function notExpired(policy: ExpiryPolicy): RawBuilder<boolean> {
  return policy.variant === 'a'
    ? sql<boolean>`expires_at > now()`
    : sql<boolean>`created_at > now() - make_interval(days => ${policy.retentionDays})`;
}
