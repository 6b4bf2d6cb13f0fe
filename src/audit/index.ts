import type { Config } from '../config.ts';
import type { Logger } from '../diagnostics/logger.ts';
import { JOB_LOCK_IDS } from '../jobs/job-lock.ts';
import { PeriodicJob } from '../jobs/periodic-job.ts';
import { expire } from '../jobs/retention-job.ts';
import type { FeatureModule } from '../pipeline/feature-module.ts';
import { RETENTION_JOB_INTERVAL_MS } from '../records/index.ts';
import type { RecordQueueSettings } from '../records/queue-settings.ts';
import type { Db } from '../store/database.ts';
import { AuditLog } from './audit-log.ts';

export interface AuditDeps {
  config: Config;
  /** Background statements: the queued rows. */
  background: Db;
  /** Maintenance statements (retention): what the retention job's delete runs on. */
  maintenance: Parameters<typeof expire>[0];
  logger: Logger;
  queue?: Partial<RecordQueueSettings>;
}

export interface Audit {
  log: AuditLog;
  start(): void;
  /** Stops retention and writes every queued row, retrying a database that is away for at most `deadlineMs`. */
  flush(deadlineMs: number): Promise<void>;
  /** Runs retention once now (tests, operators' scripts). */
  runJobs(): Promise<void>;
  /** The queue and retention started with the gateway, the rows flushed at shutdown. */
  module: FeatureModule;
}

/** The audit trail (DESIGN.md section 5, Audit), served in both variants. */
export function createAudit(deps: AuditDeps): Audit {
  const { config } = deps;
  const log = new AuditLog({ db: deps.background, logger: deps.logger, queue: deps.queue });
  // Audit rows expire like variant B's records: once per cycle across the fleet (`claim`), in
  // batches claimed with SKIP LOCKED, so a run asked for beside it deletes nothing twice.
  const retention = new PeriodicJob({
    name: 'audit-retention',
    intervalMs: RETENTION_JOB_INTERVAL_MS,
    runAtStart: true,
    logger: deps.logger,
    claim: { db: deps.maintenance, lockId: JOB_LOCK_IDS.auditRetention },
    run: () =>
      expire(deps.maintenance, {
        table: 'audit_events',
        key: 'id',
        column: 'at',
        days: config.auditRetentionDays,
      }),
  });
  const start = () => {
    log.queue.start();
    retention.start();
  };
  const flush = async (deadlineMs: number) => {
    const deadline = Date.now() + deadlineMs;
    await retention.stop();
    await log.queue.stop(Math.max(0, deadline - Date.now()));
  };
  return {
    log,
    start,
    flush,
    runJobs: () => retention.tick(),
    module: { name: 'audit', start, shutdown: [{ phase: 'flush', name: 'audit trail', run: flush }] },
  };
}
