/**
 * A preload for the gateway under test (`--import`, bench/bodies.ts): the longest main-thread
 * stall, two ways. `maxMs`: perf_hooks' event-loop delay histogram (a 1 ms timer; how late it
 * fired), which on a loaded machine also counts the time the process waited for a core. `cpuMaxMs`:
 * the main thread's own CPU (process.threadCpuUsage) between two turns of a 1 ms timer, i.e. the
 * longest stretch of work the loop did without reaching its timers, which a busy machine does not
 * inflate. With them, `cpuMs`: the whole process's CPU (process.cpuUsage, every thread, to the
 * microsecond, where /proc counts 10 ms ticks). On SIGUSR2 it writes the three, for the time since
 * the last signal, to
 * `$BENCH_STALL_DIR/<pid>.json` and starts again, so the bench reads one window of calls at a time.
 * Bench code stays out of src/: the gateway runs unchanged, with this loaded first.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

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
  let window = 0;
  let windowStartMs = processCpuMs();
  process.on('SIGUSR2', () => {
    const cpuMs = processCpuMs() - windowStartMs;
    const seen = { window: ++window, maxMs: histogram.max / 1e6, cpuMaxMs, cpuMs };
    // Written aside and renamed, so the bench never reads half a file.
    const file = join(dir, `${process.pid}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(seen));
    renameSync(`${file}.tmp`, file);
    histogram.reset();
    cpuMaxMs = 0;
    lastCpuMs = threadCpuMs();
    windowStartMs = processCpuMs();
  });
}
