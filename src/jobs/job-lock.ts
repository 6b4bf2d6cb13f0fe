import { sql } from 'kysely';
import type { Db } from '../store/database.ts';

/**
 * Advisory lock ids of the jobs (any constants shared by every replica; each is the job name's
 * first bytes in hex, as the migration lock is).
 */
export const JOB_LOCK_IDS = Object.freeze({
  /** "sy-part" */
  requestLogPartitions: 0x73792d70617274n,
  /** "sy-rret" */
  recordRetention: 0x73792d72726574n,
  /** "sy-reco" */
  operationReconcile: 0x73792d7265636fn,
  /** "sy-aret" */
  auditRetention: 0x73792d61726574n,
  /** "sy-rsgc" */
  responseStateGc: 0x73792d72736763n,
  /** "sy-uhro" */
  usageRollup: 0x73792d7568726fn,
});

export type CycleClaim = { claimed: true } | { claimed: false; reason: 'locked' | 'ran-this-cycle' };

/**
 * Claims this cycle of a job for this replica, inside `tx` (SPEC.md: "Across replicas, only one
 * instance runs this maintenance per cycle, enforced by an advisory lock"). The transaction-scoped
 * advisory lock keeps two replicas from running at once; the `job_runs` ledger, read and written
 * under that lock, keeps a replica whose timer fires just after another's run from running the same
 * cycle again. A run counts for the cycle when it started less than 90% of the interval ago, so
 * replicas whose timers drift still run once per interval between them.
 */
export async function claimCycle(
  tx: Db,
  job: string,
  lockId: bigint,
  intervalMs: number,
): Promise<CycleClaim> {
  const lock = await sql<{
    locked: boolean;
  }>`select pg_try_advisory_xact_lock(${lockId.toString()}::bigint) as locked`.execute(tx);
  if (!lock.rows[0].locked) return { claimed: false, reason: 'locked' };
  const recentSeconds = (intervalMs * 0.9) / 1000;
  const recent = await sql<{ ran: boolean }>`select exists (
      select 1 from job_runs where job = ${job} and last_run_at > now() - make_interval(secs => ${recentSeconds})
    ) as ran`.execute(tx);
  if (recent.rows[0].ran) return { claimed: false, reason: 'ran-this-cycle' };
  await sql`insert into job_runs (job, last_run_at) values (${job}, now())
    on conflict (job) do update set last_run_at = excluded.last_run_at`.execute(tx);
  return { claimed: true };
}
