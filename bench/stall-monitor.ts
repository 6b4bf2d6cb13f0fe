/**
 * A preload for the gateway under test (`--import`, bench/bodies.ts): the longest main-thread
 * stall, read from perf_hooks' event-loop delay histogram (a 1 ms timer; how late it fired is how
 * long the loop was held). On SIGUSR2 it writes what it saw since the last signal to
 * `$BENCH_STALL_DIR/<pid>.json` and starts again, so the bench reads one window of calls at a time.
 * Bench code stays out of src/: the gateway runs unchanged, with this loaded first.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const dir = process.env.BENCH_STALL_DIR;
if (dir !== undefined) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  let window = 0;
  process.on('SIGUSR2', () => {
    const seen = { window: ++window, maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6 };
    // Written aside and renamed, so the bench never reads half a file.
    const file = join(dir, `${process.pid}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(seen));
    renameSync(`${file}.tmp`, file);
    histogram.reset();
  });
}
