/**
 * BENCH_PROFILE=1 (or d, c, e): scenario (d) (or (c), or (e)) once more on a gateway started with `--cpu-prof`, after the
 * measured runs so the profiler's overhead touches none of the figures. The primary and its worker
 * each write a profile when they exit; the worker's (the process that serves the calls) is ranked
 * by self time over the load window only.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { waitServing } from './gateway-setup.ts';
import { cpuSeconds } from './proc-stats.ts';
import { type LoadWindow, type ProfileSummary, summarizeProfile } from './profile.ts';
import { BENCH_MODEL, chatRequest } from './requests.ts';
import { saturate } from './saturation.ts';
import type { BenchSession } from './session.ts';

/** The connection count at which the measured run of `scenario` served the most (else the first listed). */
function saturatingConnections(session: BenchSession, scenario: string): number {
  const measured = session.results.find((r) => r.spec.id === scenario);
  return measured?.status === 'measured' ? measured.figures.connections : session.options.connections[0];
}

/** Microseconds on the clock of a `.cpuprofile`'s timestamps. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** V8 names a profile `CPU.<date>.<time>.<pid>.<thread>.<sequence>.cpuprofile`. */
function workerProfile(dir: string, workerPids: readonly number[]): string {
  const files = readdirSync(dir).filter((name) => {
    const pid = Number(name.split('.')[3]);
    return name.endsWith('.cpuprofile') && workerPids.includes(pid);
  });
  if (files.length !== 1) {
    throw new Error(
      `expected one .cpuprofile of worker ${workerPids.join(', ')} in ${dir}, found ${files.length}`,
    );
  }
  return join(dir, files[0]);
}

export async function runProfiledGateway(session: BenchSession): Promise<ProfileSummary | null> {
  const scenario = session.options.profile;
  if (scenario === null) return null;
  const dir = join(session.runDir, 'profile');
  mkdirSync(dir, { recursive: true });
  const gateway = await session.startGateway({ label: 'profile', cpuProfileDir: dir });
  // The first pid is the primary, which only supervises; one worker serves (WORKERS=1).
  const workerPids = gateway.pids().slice(1);
  let window: LoadWindow;
  try {
    const tenant = await session.tenant(gateway);
    const credential = scenario === 'c' ? session.storage.masterKey : tenant.virtualKey;
    const call = chatRequest(BENCH_MODEL, credential, scenario === 'e');
    const answer = await waitServing(gateway.origin, call);
    if (answer.status !== 200) throw new Error(`profiled gateway answered ${answer.status}: ${answer.body}`);
    const context = session.context();
    const connections = saturatingConnections(session, scenario);
    const load = (durationS: number) =>
      saturate(session.tool, {
        origin: gateway.origin,
        request: call,
        connections,
        durationS,
        cores: context.loadCores,
        threads: context.loadThreads,
        scratchDir: session.runDir,
      });
    session.log(`(${scenario}) profiled pass: warm-up`);
    await load(Math.max(1, Math.round(session.options.warmupS)));
    session.log(`(${scenario}) profiled pass: load`);
    const fromUs = monotonicUs();
    const cpuBefore = cpuSeconds(workerPids);
    const run = await load(session.options.durationS);
    window = { fromUs, toUs: monotonicUs(), calls: run.ok, cpuS: cpuSeconds(workerPids) - cpuBefore };
  } finally {
    await gateway.stop();
  }
  return summarizeProfile(scenario, workerProfile(dir, workerPids), window);
}
