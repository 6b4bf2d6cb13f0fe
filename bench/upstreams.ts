/** Starts the fake upstream and the pass-through proxy as their own processes. */
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import type { BenchOptions } from './options.ts';
import { type BenchChild, readJsonLine, startChild } from './processes.ts';

const FAKE = fileURLToPath(new URL('./fake-upstream.ts', import.meta.url));
const PROXY = fileURLToPath(new URL('./passthrough-proxy.ts', import.meta.url));
const READY_TIMEOUT_MS = 15_000;

export interface Upstream {
  origin: string;
  child: BenchChild;
}

async function ready(child: BenchChild, timeoutMs = READY_TIMEOUT_MS): Promise<Upstream> {
  const line = await readJsonLine<{ port: number }>(child.child, (value) => value.ready === true, timeoutMs);
  return { origin: `http://127.0.0.1:${line.port}`, child };
}

export function startFakeUpstream(options: BenchOptions, cores: string | null): Promise<Upstream> {
  return ready(
    startChild({
      args: [FAKE],
      env: {
        FAKE_LATENCY_MS: String(options.fakeLatencyMs),
        FAKE_STREAM_CHUNKS: String(options.streamChunks),
        FAKE_CHUNK_INTERVAL_MS: String(options.chunkIntervalMs),
      },
      cores,
      logFile: null,
    }),
  );
}

export function startPassthroughProxy(
  upstreamOrigin: string,
  cores: string | null,
  wrapper?: readonly string[],
  nodeArgs: readonly string[] = [],
): Promise<Upstream> {
  const child = startChild({
    args: [...nodeArgs, PROXY],
    env: { UPSTREAM_URL: upstreamOrigin },
    cores,
    logFile: null,
    wrapper,
  });
  // Under valgrind the proxy's start-up is many times slower than the usual 15 s allow.
  return ready(child, wrapper === undefined ? READY_TIMEOUT_MS : READY_TIMEOUT_MS * 20);
}

/** Calls the fake has answered so far (its `GET /__stats`). */
export async function fakeCalls(fake: Upstream): Promise<number> {
  const answer = await request(`${fake.origin}/__stats`);
  return ((await answer.body.json()) as { calls: number }).calls;
}
