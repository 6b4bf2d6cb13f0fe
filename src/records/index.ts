import type { Config } from '../config.ts';
import type { Keyring } from '../crypto/index.ts';
import type { Logger } from '../diagnostics/logger.ts';
import { JOB_LOCK_IDS } from '../jobs/job-lock.ts';
import { runPartitionMaintenance } from '../jobs/partition-job.ts';
import { PeriodicJob } from '../jobs/periodic-job.ts';
import { runReconcile } from '../jobs/reconcile-job.ts';
import { runRetention } from '../jobs/retention-job.ts';
import type { FeatureModule } from '../pipeline/feature-module.ts';
import type { CallObserver } from '../pipeline/pipeline.ts';
import { type Database, withTimeout } from '../store/database.ts';
import type { BatchQueue } from './batch-queue.ts';
import { RECORD_QUEUE_DEFAULTS, type RecordQueueSettings } from './queue-settings.ts';
import { captureResponse } from './response-capture.ts';
import { rollUpUsage } from './usage-rollup.ts';
import { RequestLogRecorder } from './variant-a/request-log-recorder.ts';
import { OperationRecorder } from './variant-b/operation-recorder.ts';
import {
  PAYLOAD_SAMPLE_DEFAULTS,
  PayloadSampler,
  type PayloadSampleSettings,
} from './variant-b/payload-sampler.ts';

/** Variant B's maintenance periods (no SPEC.md variable names them; docs/configuration.md lists them). */
export const RETENTION_JOB_INTERVAL_MS = 15 * 60_000;
export const RECONCILE_JOB_INTERVAL_MS = 60_000;
export const USAGE_ROLLUP_INTERVAL_MS = 5 * 60_000;
/** An hour is rolled up once it ended this long ago: past the reconcile job's 30-minute stale bound. */
export const USAGE_ROLLUP_SETTLE_MS = 60 * 60_000;

export interface RecordsDeps {
  config: Config;
  database: Database;
  keyring: Keyring;
  logger: Logger;
  /** Tuning and tests: queue sizes, payload sampling, the reconcile staleness bound. */
  queue?: Partial<RecordQueueSettings>;
  sampling?: Partial<PayloadSampleSettings>;
  reconcileStaleAfterMs?: number;
}

export interface Records {
  /** The record stage, for the pipeline's observer list (after settlement, before telemetry). */
  observers: CallObserver[];
  /** The write queues, for tests and health. */
  queues: readonly BatchQueue<unknown>[];
  /** Starts the queues' timers and the maintenance jobs. */
  start(): void;
  /**
   * Stops the jobs and writes every queued record (lifecycle phase `flush`), retrying a database
   * that is away for at most `deadlineMs`; what is still queued then is logged as lost.
   */
  flush(deadlineMs: number): Promise<void>;
  /** Runs each maintenance job once now (tests, operators' scripts). */
  runJobs(): Promise<void>;
  /** The response capture at its answer place, the recorders as observers, the queues' flush. */
  module: FeatureModule;
}

/** Request records for the configured variant (SPEC.md, Request log records). */
export function createRecords(deps: RecordsDeps): Records {
  const queue = { ...RECORD_QUEUE_DEFAULTS, ...deps.queue };
  return deps.config.variant === 'a' ? variantA(deps, queue) : variantB(deps, queue);
}

function variantA(deps: RecordsDeps, queue: RecordQueueSettings): Records {
  const { config, database, logger } = deps;
  const recorder = new RequestLogRecorder({
    db: database.background,
    logger,
    maxPromptLength: config.maxStringLengthPromptInDb,
    queue,
  });
  const partitions = new PeriodicJob({
    name: 'request-log-partitions',
    intervalMs: config.requestLogPartitionJobIntervalMs,
    runAtStart: true,
    logger,
    run: () =>
      runPartitionMaintenance({
        db: database.background,
        intervalMs: config.requestLogPartitionJobIntervalMs,
        createDays: config.requestLogPartitionCreateDays,
        retentionDays: config.requestLogPartitionRetentionDays,
      }),
  });
  return assemble([recorder], [recorder.queue as BatchQueue<unknown>], [partitions]);
}

function variantB(deps: RecordsDeps, queue: RecordQueueSettings): Records {
  const { config, database, logger } = deps;
  const recorder = new OperationRecorder({
    db: database.background,
    keyring: deps.keyring,
    logger,
    maxPromptLength: config.maxStringLengthPromptInDb,
    queue,
    sampler: new PayloadSampler({ ...PAYLOAD_SAMPLE_DEFAULTS, ...deps.sampling }),
  });
  const retention = new PeriodicJob({
    name: 'record-retention',
    intervalMs: RETENTION_JOB_INTERVAL_MS,
    runAtStart: true,
    logger,
    claim: { db: database.background, lockId: JOB_LOCK_IDS.recordRetention },
    run: () =>
      runRetention({
        db: database.background,
        metadataRetentionDays: config.observabilityMetadataRetentionDays,
        payloadRetentionDays: config.observabilityPayloadRetentionDays,
      }),
  });
  const reconcile = new PeriodicJob({
    name: 'operation-reconcile',
    intervalMs: RECONCILE_JOB_INTERVAL_MS,
    runAtStart: true,
    logger,
    claim: { db: database.background, lockId: JOB_LOCK_IDS.operationReconcile },
    run: () => runReconcile({ db: database.background, staleAfterMs: deps.reconcileStaleAfterMs }),
  });
  const rollup = new PeriodicJob({
    name: 'usage-rollup',
    intervalMs: USAGE_ROLLUP_INTERVAL_MS,
    runAtStart: true,
    logger,
    run: () =>
      rollUpUsage({
        db: database.background,
        settleMs: USAGE_ROLLUP_SETTLE_MS,
        retentionDays: config.observabilityMetadataRetentionDays,
      }),
  });
  return assemble([recorder], recorder.queues, [retention, reconcile, rollup]);
}

function assemble(
  observers: CallObserver[],
  queues: readonly BatchQueue<unknown>[],
  jobs: readonly PeriodicJob[],
): Records {
  const start = () => {
    for (const queue of queues) queue.start();
    for (const job of jobs) job.start();
  };
  const flush = (deadlineMs: number) => stopRecords(queues, jobs, deadlineMs);
  return {
    observers,
    queues,
    start,
    flush,
    runJobs: async () => {
      for (const job of jobs) await job.tick();
    },
    module: {
      name: 'records',
      answer: { capture: captureResponse },
      observers,
      start,
      shutdown: [{ phase: 'flush', name: 'request records', run: flush }],
    },
  };
}

/**
 * The records' shutdown step: the jobs stopped and the queues flushed within `deadlineMs`.
 * Stopping a job waits for its run in progress, which a database that stopped answering holds
 * past any deadline: the queues are flushed meanwhile, so what they could not write is reported
 * lost within the deadline, and the jobs are waited for only until it (then DependencyTimeoutError).
 */
export async function stopRecords(
  queues: readonly Pick<BatchQueue<unknown>, 'stop'>[],
  jobs: readonly Pick<PeriodicJob, 'stop'>[],
  deadlineMs: number,
): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  const jobsStopped = Promise.all(jobs.map((job) => job.stop()));
  for (const queue of queues) await queue.stop(Math.max(0, deadline - Date.now()));
  await withTimeout(jobsStopped, Math.max(0, deadline - Date.now()), 'record jobs');
}
