/**
 * What bench/streams.ts and bench/bodies.ts share: the gateway (the build, one worker, the run's
 * storage) on one fake upstream, with one deployment per answer size (a path under `/n/<chunks>/`
 * of the fake, bench/fake-upstream.ts) and a virtual key for all of them; and the CPU a serving
 * process spends on a window of sequential calls, from /proc (bench/proc-stats.ts).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Pool } from 'undici';
import { callsInTurn } from './callgrind.ts';
import { freePort } from './free-port.ts';
import { buildGateway, type GatewayProcess, startGateway } from './gateway-process.ts';
import { createBenchDeployment, createBenchKey } from './gateway-setup.ts';
import { benchOptions } from './options.ts';
import { cpuSeconds } from './proc-stats.ts';
import type { BenchRequest } from './requests.ts';
import { type BenchStorage, prepareStorage } from './storage.ts';
import { startFakeUpstream, type Upstream } from './upstreams.ts';

export interface EntryRig {
  outDir: string;
  fake: Upstream;
  gateway: GatewayProcess;
  /** The gateway's one worker: the process that serves the calls. */
  servingPid: number;
  virtualKey: string;
  stop(): Promise<void>;
}

export interface RigSettings {
  /** The entry's id: names its results directory and its gateway's log. */
  id: string;
  /** Public model -> the fake's answer size in words (`/n/<chunks>/`). */
  models: ReadonlyMap<string, number>;
  /** Node.js flags of the gateway (a preload). */
  nodeArgs?: string[];
  /** Environment added to the gateway's. */
  env?: Record<string, string>;
  /** Serve from the source under --cpu-prof, writing the profiles to `<outDir>/profile`. */
  cpuProfile?: boolean;
}

/** The fake's base for answers of `chunks` words. */
export function sizedBase(fake: Upstream, chunks: number): string {
  return `${fake.origin}/n/${chunks}`;
}

async function configure(
  gateway: GatewayProcess,
  storage: BenchStorage,
  fake: Upstream,
  settings: RigSettings,
) {
  for (const [model, chunks] of settings.models) {
    await createBenchDeployment(gateway.origin, storage.masterKey, sizedBase(fake, chunks), model);
  }
  return createBenchKey(gateway.origin, storage.masterKey, [...settings.models.keys()]);
}

export async function startEntryRig(resultsDir: string, settings: RigSettings): Promise<EntryRig> {
  const outDir = join(resultsDir, `${settings.id}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(outDir, { recursive: true });
  const options = benchOptions(process.env, resultsDir);
  buildGateway();
  const storage = await prepareStorage(options, join(outDir, 'migrate.log'));
  const fake = await startFakeUpstream(options, null);
  const stopAll = async () => {
    await fake.child.stop();
    await storage.cleanup();
  };
  try {
    const gateway = await startGateway(
      {
        label: settings.id,
        workers: 1,
        logLevel: options.logLevel,
        responseCacheTtlMs: 0,
        cores: null,
        cpuProfileDir: settings.cpuProfile === true ? join(outDir, 'profile') : null,
        nodeArgs: [...options.gatewayNodeArgs, ...(settings.nodeArgs ?? [])],
        logFile: join(outDir, 'gateway.log'),
        port: await freePort(),
      },
      { ...storage, env: { ...storage.env, ...settings.env } },
    );
    const [, worker] = gateway.pids();
    if (worker === undefined) {
      await gateway.stop();
      throw new Error('the gateway has no worker process');
    }
    const key = await configure(gateway, storage, fake, settings).catch(async (error: unknown) => {
      await gateway.stop();
      throw error;
    });
    return {
      outDir,
      fake,
      gateway,
      servingPid: worker,
      virtualKey: key.virtualKey,
      stop: async () => {
        await gateway.stop();
        await stopAll();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** CPU seconds per call the process `pid` spent on `count` sequential calls. */
export async function cpuPerCall(
  pool: Pool,
  call: BenchRequest,
  pid: number,
  count: number,
): Promise<number> {
  const before = cpuSeconds([pid]);
  await callsInTurn(pool, call, count);
  return (cpuSeconds([pid]) - before) / count;
}
