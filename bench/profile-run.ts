/**
 * BENCH_PROFILE=1 (or d, c, e): scenario (d) (or (c), or (e)) once more on a gateway started with `--cpu-prof`, after the
 * measured runs so the profiler's overhead touches none of the figures. The profile is written
 * when the gateway exits, then ranked by self time over the load window only.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { waitServing } from './gateway-setup.ts';
import { type ProfileSummary, summarizeProfile } from './profile.ts';
import { BENCH_MODEL, chatRequest } from './requests.ts';
import { saturate } from './saturation.ts';
import type { BenchSession } from './session.ts';

/** The connection count at which the measured run of `scenario` served the most (else the first listed). */
function saturatingConnections(session: BenchSession, scenario: string): number {
  const measured = session.results.find((r) => r.spec.id === scenario);
  return measured?.status === 'measured' ? measured.figures.connections : session.options.connections[0];
}

export async function runProfiledGateway(session: BenchSession): Promise<ProfileSummary | null> {
  const scenario = session.options.profile;
  if (scenario === null) return null;
  const dir = join(session.runDir, 'profile');
  mkdirSync(dir, { recursive: true });
  const startedAt = performance.now();
  const gateway = await session.startGateway({ label: 'profile', cpuProfileDir: dir });
  let window: { skipMs: number; windowMs: number };
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
    const loadStart = performance.now();
    await load(session.options.durationS);
    window = { skipMs: loadStart - startedAt, windowMs: performance.now() - loadStart };
  } finally {
    await gateway.stop();
  }
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`no .cpuprofile written in ${dir}`);
  return summarizeProfile(scenario, join(dir, file), window);
}
