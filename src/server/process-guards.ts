import { exitAfterFlush, type Logger } from '../telemetry/logger.ts';

let installed = false;

/**
 * An unhandled rejection is a defect: it is logged and ends the process, as Node would by default,
 * but through the logger so the line is not lost. (The database driver leaves none: pg reports a
 * connection's failure to the statement or, idle, to the pool's 'error' listener.)
 */
export function installProcessGuards(logger: Logger): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason) => {
    logger.fatal({ err: reason }, 'unhandled rejection');
    exitAfterFlush(logger, 1);
  });
}
