import { isDatabaseUnavailable } from '../store/database.ts';
import { exitAfterFlush, type Logger } from '../telemetry/logger.ts';

let installed = false;

/**
 * postgres.js starts each new connection with a type lookup it does not await
 * (`fetchArrayTypes` in its connection.js), so a connection that dies during that first query
 * leaves a rejection nobody can catch. Such connection errors are logged and absorbed: the pool
 * reconnects and callers already got their own errors. Any other unhandled rejection is a defect
 * and still ends the process, as Node would by default.
 */
export function installProcessGuards(logger: Logger): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason) => {
    if (isDatabaseUnavailable(reason)) {
      logger.warn(
        { code: (reason as { code?: string }).code },
        'database connection lost during setup; reconnecting',
      );
      return;
    }
    logger.fatal({ err: reason }, 'unhandled rejection');
    exitAfterFlush(logger, 1);
  });
}
