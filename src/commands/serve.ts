import cluster from 'node:cluster';
import type { Config } from '../config.ts';
import { runPrimary } from '../server/cluster.ts';
import { createLogger, exitAfterFlush } from '../telemetry/logger.ts';

/** `npm start`: serves until SIGTERM or SIGINT, then drains and closes in order (SPEC.md rule 3). */
export async function serveCommand(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  if (config.workers > 1 && cluster.isPrimary) {
    await runPrimary(config, logger);
    return;
  }
  // Imported here, not at the top: a WORKERS primary only supervises, and loading the gateway's
  // modules (database drivers, providers, catalog data) would more than double its memory
  // (docs/decisions/hot-path.md, Modules loaded only where used).
  const { buildGateway } = await import('../server/gateway.ts');
  const gateway = await buildGateway(config, logger);
  const address = await gateway.listen();
  logger.info(
    { address, variant: config.variant, embedded: gateway.runtime.embedded },
    'switchyard listening',
  );
  const stop = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'shutting down: draining in-flight requests');
    void gateway.shutdown().then(() => {
      logger.info('shutdown complete');
      exitAfterFlush(logger, 0);
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
