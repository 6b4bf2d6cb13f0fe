import { setTimeout as delay } from 'node:timers/promises';
import { exitAfterFlush, type Logger } from '../diagnostics/logger.ts';

export interface FatalErrorDrain {
  /**
   * What a fatal error runs before the process exits non-zero: in a worker the gateway's shutdown
   * (stop accepting, finish in-flight calls, flush records and spend), in the primary stopping the
   * workers. It gets at most `timeoutMs`; the process exits then whether or not it finished.
   */
  drainBeforeExit(drain: () => Promise<void>, timeoutMs: number): void;
}

let rejectionsGuarded = false;
let exceptionsGuarded = false;
let registered: { drain: () => Promise<void>; timeoutMs: number } | undefined;
let ending = false;

const fatalErrorDrain: FatalErrorDrain = {
  drainBeforeExit(drain, timeoutMs) {
    registered = { drain, timeoutMs };
  },
};

/**
 * An unhandled rejection is a defect and ends the process, as Node would by default. Idempotent. This module imports nothing of the
 * gateway, so the primary can use it and stay small.
 */
export function guardRejections(logger: Logger): void {
  if (rejectionsGuarded) return;
  rejectionsGuarded = true;
  process.on('unhandledRejection', (reason) => {
    endProcess(logger, 'unhandled rejection', reason);
  });
}

/**
 * The guards of a serving process (a worker or the primary): an uncaught exception or unhandled
 * rejection is logged at fatal level, the registered drain runs within its bound, and the process
 * exits with status 1, so the primary restarts the worker. Only `serve` installs them: a test
 * runner keeps its own handling of uncaught exceptions.
 */
export function guardServingProcess(logger: Logger): FatalErrorDrain {
  guardRejections(logger);
  if (!exceptionsGuarded) {
    exceptionsGuarded = true;
    process.on('uncaughtException', (error) => endProcess(logger, 'uncaught exception', error));
  }
  return fatalErrorDrain;
}

/** Logs the fault, drains once (a second fault during the drain is logged, not drained again), exits 1. */
function endProcess(logger: Logger, message: string, error: unknown): void {
  logger.fatal({ err: error }, message);
  if (ending) return;
  ending = true;
  if (registered === undefined) {
    exitAfterFlush(logger, 1);
    return;
  }
  const { drain, timeoutMs } = registered;
  logger.info({ timeoutMs }, 'draining before exit: no new connections, finishing calls in flight');
  const drained = Promise.resolve()
    .then(drain)
    .catch((drainError: unknown) => logger.error({ err: drainError }, 'drain before exit failed'));
  void settlesWithin(drained, timeoutMs).then((settled) => {
    if (!settled) logger.error({ timeoutMs }, 'drain did not finish in time; exiting anyway');
    exitAfterFlush(logger, 1);
  });
}

/** True when `work` settled within `timeoutMs`. */
async function settlesWithin(work: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  const timeout = new AbortController();
  const expired = delay(timeoutMs, false, { signal: timeout.signal }).catch(() => false);
  try {
    return await Promise.race([work.then(() => true), expired]);
  } finally {
    timeout.abort();
  }
}
