/**
 * The scenarios that need a gateway, grouped by the gateway they need: each group starts its own
 * `serve` process with its own settings, measures, and stops it before the next starts.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import type { GatewayProcess } from './gateway-process.ts';
import {
  createTrivialExtension,
  deleteTrivialExtension,
  keySpendCents,
  type ProbeAnswer,
  send,
  waitServing,
} from './gateway-setup.ts';
import { planCores } from './pinning.ts';
import { BENCH_MODEL, type BenchRequest, chatRequest, messagesRequest } from './requests.ts';
import { logLevelSpec, SCENARIOS, type ScenarioSpec } from './scenarios.ts';
import type { BenchSession } from './session.ts';
import { fakeCalls } from './upstreams.ts';

/** Time for the spend writer (250 ms period) to flush before the spend is read back. */
const SPEND_SETTLE_MS = 1_000;

function isOk(answer: ProbeAnswer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

/** Waits until every worker serves `call`; throws with the gateway's answer when it does not. */
async function serving(gateway: GatewayProcess, call: BenchRequest): Promise<ProbeAnswer> {
  const answer = await waitServing(gateway.origin, call);
  if (!isOk(answer)) throw new Error(`${call.path} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
  return answer;
}

/** Starts a gateway for `specs`, runs `body`, stops it; a failure marks every unmeasured spec failed. */
async function withGateway(
  session: BenchSession,
  specs: readonly ScenarioSpec[],
  settings: Parameters<BenchSession['startGateway']>[0],
  body: (gateway: GatewayProcess) => Promise<void>,
): Promise<void> {
  if (!specs.some((spec) => session.selected(spec))) return;
  let gateway: GatewayProcess | undefined;
  try {
    gateway = await session.startGateway(settings);
    await body(gateway);
  } catch (error) {
    for (const spec of specs) {
      if (!session.results.some((r) => r.spec.id === spec.id)) {
        session.unavailable(spec, 'failed', (error as Error).message);
      }
    }
  } finally {
    await gateway?.stop();
  }
}

/** (c), (d), (e) and (g) on one gateway: one worker, the run's log level, no response cache. */
export async function runMainGateway(session: BenchSession): Promise<void> {
  const { master, virtualKey, sse, messages } = SCENARIOS;
  await withGateway(session, [master, virtualKey, sse, messages], { label: 'main' }, async (gateway) => {
    const tenant = await session.tenant(gateway);
    const pids = () => gateway.pids();
    const masterCall = chatRequest(BENCH_MODEL, session.storage.masterKey, false);
    await serving(gateway, masterCall);
    await session.measure(master, { origin: gateway.origin, request: masterCall, serverPids: pids });

    const keyCall = chatRequest(BENCH_MODEL, tenant.virtualKey, false);
    const answer = await serving(gateway, keyCall);
    const limited = answer.headers['x-ratelimit-limit-requests'] !== undefined;
    const spendBefore = await keySpendCents(gateway.origin, session.storage.masterKey, tenant.keyId);
    const notes = [
      limited ? 'rate-limit headers present' : 'WARNING: no x-ratelimit-* headers on the answer',
    ];
    await session.measure(
      virtualKey,
      { origin: gateway.origin, request: keyCall, serverPids: pids },
      { notes },
    );
    await delay(SPEND_SETTLE_MS);
    const spent =
      (await keySpendCents(gateway.origin, session.storage.masterKey, tenant.keyId)) - spendBefore;
    notes.push(
      spent > 0
        ? `key spend grew by ${spent.toFixed(4)} cents during (d): cost is counted`
        : 'WARNING: the key spent nothing during (d): cost is not counted',
    );

    const streamCall = chatRequest(BENCH_MODEL, tenant.virtualKey, true);
    await serving(gateway, streamCall);
    await session.measure(sse, { origin: gateway.origin, request: streamCall, serverPids: pids });

    await measureMessages(session, gateway, messagesRequest(BENCH_MODEL, tenant.virtualKey));
  });
}

/** Whether the gateway documents a route: its OpenAPI document lists every route it serves. */
async function servesRoute(gateway: GatewayProcess, path: string): Promise<boolean> {
  const answer = await request(`${gateway.origin}/openapi.json`);
  const document = (await answer.body.json()) as { paths?: Record<string, unknown> };
  return document.paths?.[path] !== undefined;
}

/** (g) is measured as soon as the gateway serves POST /v1/messages; until then it is reported missing. */
async function measureMessages(session: BenchSession, gateway: GatewayProcess, call: BenchRequest) {
  const spec = SCENARIOS.messages;
  if (!session.selected(spec)) return;
  if (!(await servesRoute(gateway, call.path))) {
    session.unavailable(
      spec,
      'not available',
      `the gateway does not serve POST ${call.path} yet (not in /openapi.json)`,
    );
    return;
  }
  const answer = await waitServing(gateway.origin, call);
  if (!isOk(answer)) {
    session.unavailable(
      spec,
      'failed',
      `POST ${call.path} answered ${answer.status}: ${answer.body.slice(0, 300)}`,
    );
    return;
  }
  await session.measure(spec, { origin: gateway.origin, request: call, serverPids: () => gateway.pids() });
}

/** (f): the same call over and over with the response cache on, so every call after the first hits. */
export async function runCacheGateway(session: BenchSession): Promise<void> {
  const spec = SCENARIOS.cacheHit;
  const settings = { label: 'cache', responseCacheTtlMs: 3_600_000 };
  await withGateway(session, [spec], settings, async (gateway) => {
    const tenant = await session.tenant(gateway);
    const call = chatRequest(BENCH_MODEL, tenant.virtualKey, false);
    await serving(gateway, call);
    const second = await send(gateway.origin, call);
    const header = second.headers['x-gateway-cache'];
    if (header === undefined) {
      session.unavailable(
        spec,
        'not available',
        'no response cache in this gateway: with RESPONSE_CACHE_TTL_MS set, answers carry no x-gateway-cache header',
      );
      return;
    }
    if (header !== 'hit') {
      session.unavailable(
        spec,
        'failed',
        `an identical second call answered x-gateway-cache: ${String(header)}`,
      );
      return;
    }
    const before = await fakeCalls(session.fake);
    const notes: string[] = [];
    await session.measure(
      spec,
      { origin: gateway.origin, request: call, serverPids: () => gateway.pids() },
      { notes },
    );
    notes.push(`${(await fakeCalls(session.fake)) - before} calls reached the upstream during the run`);
  });
}

/** (h): scenario (c) with one trivial `beforeUpstream` extension on the model; compare with (c). */
export async function runExtensionGateway(session: BenchSession): Promise<void> {
  const spec = SCENARIOS.extension;
  await withGateway(session, [spec], { label: 'extension' }, async (gateway) => {
    await session.tenant(gateway);
    await createTrivialExtension(gateway.origin, session.storage.masterKey);
    const notes = ['compare with (c): the same call without the extension'];
    try {
      const call = chatRequest(BENCH_MODEL, session.storage.masterKey, false);
      await serving(gateway, call);
      await session.measure(
        spec,
        { origin: gateway.origin, request: call, serverPids: () => gateway.pids() },
        { notes },
      );
    } finally {
      await deleteTrivialExtension(gateway.origin, session.storage.masterKey).catch((error: Error) => {
        notes.push(
          `WARNING: the extension could not be deleted, the gateways after (h) run with it: ${error.message}`,
        );
      });
    }
  });
}

/**
 * (c) with WORKERS=1 and WORKERS=2 on the same core layout (two server cores when the machine has
 * a third for the load generator), so the two figures differ only by the worker count. WORKERS=2
 * needs Redis: each worker is a full replica sharing limits and router state through it.
 */
export async function runWorkersGateways(session: BenchSession): Promise<void> {
  const { oneWorker, workers } = SCENARIOS;
  if (!session.storage.hasRedis) {
    const reason =
      'WORKERS>1 needs REDIS_URL (the in-process cache store is not shared between processes); set REDIS_URL to measure it';
    session.unavailable(oneWorker, 'not available', reason);
    session.unavailable(workers, 'not available', reason);
    return;
  }
  const plan = planCores(2);
  for (const [spec, count] of [
    [oneWorker, 1],
    [workers, 2],
  ] as const) {
    const settings = { label: `workers-${count}`, workers: count, cores: plan.serverCores };
    await withGateway(session, [spec], settings, async (gateway) => {
      await session.tenant(gateway);
      const call = chatRequest(BENCH_MODEL, session.storage.masterKey, false);
      await serving(gateway, call);
      await session.measure(
        spec,
        { origin: gateway.origin, request: call, serverPids: () => gateway.pids() },
        { phases: { rate: false, sequential: false }, plan, notes: [plan.note] },
      );
    });
  }
}

/** (c) at the other of `info`/`warn`: what one access-log line per call costs. */
export async function runLogLevelGateway(session: BenchSession): Promise<void> {
  if (!session.options.compareLogLevels) return;
  const level = session.options.logLevel === 'info' ? 'warn' : 'info';
  const spec = logLevelSpec(level);
  await withGateway(session, [spec], { label: `log-${level}`, logLevel: level }, async (gateway) => {
    await session.tenant(gateway);
    const call = chatRequest(BENCH_MODEL, session.storage.masterKey, false);
    await serving(gateway, call);
    await session.measure(
      spec,
      { origin: gateway.origin, request: call, serverPids: () => gateway.pids() },
      { phases: { rate: false, sequential: true } },
    );
  });
}
