import type { Logger } from '../diagnostics/logger.ts';
import { guardRejections } from './fatal-errors.ts';

/**
 * An unhandled rejection is a defect: it is logged and ends the process, as Node would by default,
 * but through the logger so the line is not lost, and in a serving process after the drain of
 * fatal-errors.ts. (The database driver leaves none: pg reports a connection's failure to the
 * statement or, idle, to the pool's 'error' listener.)
 */
export function installProcessGuards(logger: Logger): void {
  guardRejections(logger);
}
