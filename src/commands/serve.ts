import cluster from 'node:cluster';
import type { Config } from '../config.ts';
import { createLogger, exitAfterFlush, type Logger, resolveLogFormat } from '../diagnostics/logger.ts';
import { reportListening, runPrimary } from '../server/cluster.ts';
import { guardServingProcess } from '../server/fatal-errors.ts';
import type { RuntimeFacts } from '../server/runtime.ts';
import { type AppliedHeap, applyHeapGrowth } from '../server/worker-heap.ts';

/**
 * `npm start`: a primary that supervises `WORKERS` gateway workers (src/server/cluster.ts). Each
 * worker serves until SIGTERM or SIGINT, then drains and closes in order (SPEC.md rule 3).
 */
export async function serveCommand(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel, undefined, resolveLogFormat(config.logFormat));
  if (cluster.isPrimary) await runPrimary(config, logger);
  else await serveWorker(config, logger);
}

async function serveWorker(config: Config, logger: Logger): Promise<void> {
  const guards = guardServingProcess(logger);
  const heap = applyHeapGrowth(config.workerHeap, process.execArgv, process.env);
  // Imported here, not at the top: the primary only supervises, and loading the gateway's modules
  // (database drivers, providers, catalog data) would more than double its memory
  // (docs/decisions/hot-path.md, Modules loaded only where used).
  const { buildGateway } = await import('../gateway/gateway.ts');
  const gateway = await buildGateway(config, logger);
  guards.drainBeforeExit(() => gateway.shutdown(), config.shutdownTimeoutMs);
  const address = await gateway.listen();
  logger.info(
    { address, variant: config.variant, embedded: gateway.runtime.embedded },
    'switchyard listening',
  );
  announceStart(logger, gateway.runtime.facts, address, heap);
  reportListening();
  let stopping = false;
  // `on`, not `once`: Ctrl-C reaches the primary and the worker, and the primary passes it on too;
  // a repeated signal must not kill a worker that is draining.
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: draining in-flight requests');
    void gateway.shutdown().then(() => {
      logger.info('shutdown complete');
      exitAfterFlush(logger, 0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/**
 * The start-up lines for whoever started it (issue 33): where state and secrets live and where
 * the console is, each its own log line, so JSON mode stays one object per line.
 */
function announceStart(logger: Logger, facts: RuntimeFacts, address: string, heap: AppliedHeap): void {
  // A wildcard address is not one a browser can open; the machine's own name for itself is.
  const url = `http://${address.replace(/^(0\.0\.0\.0|\[::\]):/, 'localhost:')}`;
  logger.info({ database: facts.database }, `database: ${facts.database}`);
  logger.info({ cacheStore: facts.cacheStore }, `cache store: ${facts.cacheStore}`);
  logger.info({ masterKeySource: facts.masterKey }, `master key: ${facts.masterKey}`);
  logger.info({ console: `${url}/console/` }, `console: ${url}/console/`);
  logger.info({ workerHeap: heap }, `worker heap: ${describeHeap(heap)}`);
}

function describeHeap(heap: AppliedHeap): string {
  const young =
    heap.semiSpaceMb === null ? "Node.js's default young generation" : `${heap.semiSpaceMb} MiB semi-spaces`;
  const first =
    heap.initialOldSpaceMb === null
      ? "V8's own first full collection"
      : `the first full collection at ${heap.initialOldSpaceMb} MiB of old generation`;
  const growth =
    heap.growthPercent === null
      ? "V8's own growth"
      : `the old generation grows ${heap.growthPercent}% over what survived`;
  const arenas =
    heap.mallocArenas === null
      ? "the C library's own malloc arenas"
      : `${heap.mallocArenas} malloc arenas at most`;
  const external = heap.externalMemoryInHeapLimit
    ? 'memory outside the heap counted against its limit'
    : 'memory outside the heap collected every 64 MB of its own';
  return `${young}, ${first}, ${growth}, ${arenas}, ${external}`;
}
