/**
 * A preload for the gateway under test (`--import`, bench/bodies.ts): the longest main-thread
 * stall, two ways. `maxMs`: perf_hooks' event-loop delay histogram (a 1 ms timer; how late it
 * fired), which on a loaded machine also counts the time the process waited for a core. `cpuMaxMs`:
 * the main thread's own CPU (process.threadCpuUsage) between two turns of a 1 ms timer, i.e. the
 * longest stretch of work the loop did without reaching its timers, which a busy machine does not
 * inflate. With them, `cpuMs`: the whole process's CPU (process.cpuUsage, every thread, to the
 * microsecond, where /proc counts 10 ms ticks), and the full collections (perf_hooks' `gc` entries
 * of the major kind) with the longest one's pause, so a stall can be told from a collection's, and
 * the largest resident set seen (sampled every 25 ms), what memory a window held. On
 * SIGUSR2 it writes them, for the time since the last signal, to
 * `$BENCH_STALL_DIR/<pid>.json` and starts again, so the bench reads one window of calls at a time.
 * Bench code stays out of src/: the gateway runs unchanged, with this loaded first.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  constants,
  monitorEventLoopDelay,
  type PerformanceEntry,
  PerformanceObserver,
} from 'node:perf_hooks';

function processCpuMs(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

function threadCpuMs(): number {
  const used = process.threadCpuUsage();
  return (used.user + used.system) / 1000;
}

const dir = process.env.BENCH_STALL_DIR;
if (dir !== undefined) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  let lastCpuMs = threadCpuMs();
  let cpuMaxMs = 0;
  setInterval(() => {
    const now = threadCpuMs();
    cpuMaxMs = Math.max(cpuMaxMs, now - lastCpuMs);
    lastCpuMs = now;
  }, 1).unref();
  let fullGcs = 0;
  let fullGcMaxMs = 0;
  new PerformanceObserver((list) => {
    // A gc entry's `detail` holds its kind (Node.js perf_hooks, "Garbage Collection Details").
    for (const entry of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[]) {
      if (entry.detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      fullGcs++;
      fullGcMaxMs = Math.max(fullGcMaxMs, entry.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  let rssMaxMb = 0;
  setInterval(() => {
    rssMaxMb = Math.max(rssMaxMb, process.memoryUsage.rss() / 1_048_576);
  }, 25).unref();
  let window = 0;
  let windowStartMs = processCpuMs();
  process.on('SIGUSR2', () => {
    const cpuMs = processCpuMs() - windowStartMs;
    const seen = {
      window: ++window,
      maxMs: histogram.max / 1e6,
      cpuMaxMs,
      cpuMs,
      fullGcs,
      fullGcMaxMs,
      rssMaxMb,
    };
    // Written aside and renamed, so the bench never reads half a file.
    const file = join(dir, `${process.pid}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(seen));
    renameSync(`${file}.tmp`, file);
    histogram.reset();
    cpuMaxMs = 0;
    fullGcs = 0;
    fullGcMaxMs = 0;
    rssMaxMb = 0;
    lastCpuMs = threadCpuMs();
    windowStartMs = processCpuMs();
  });
}
