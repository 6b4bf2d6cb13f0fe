/**
 * Configures the gateway under test through its admin API, as an operator would: one deployment
 * of the bench model on the fake upstream (with a price, so cost is counted) and one virtual key
 * with RPM, TPM and budget limits far above what a run can reach (so they are checked on every
 * call, never tripped).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { FAKE_MODEL } from './fake-answers.ts';
import { BENCH_MODEL, type BenchRequest } from './requests.ts';

/** gpt-4o-mini's list price in cents per million tokens: any non-zero price would do. */
const PRICING = { inputCentsPerMTok: 15, outputCentsPerMTok: 60 };
/**
 * Limits no run reaches: 100 M calls a minute, 2 G tokens a minute (the column is a Postgres
 * `integer`), a budget of ten million dollars.
 */
const KEY_LIMITS = { rpmLimit: 100_000_000, tpmLimit: 2_000_000_000, budgetCents: 1_000_000_000 };
const SERVING_TIMEOUT_MS = 30_000;

export interface BenchKey {
  keyId: string;
  /** The virtual key's secret (`sk-sy-...`). */
  virtualKey: string;
}

export interface BenchTenant extends BenchKey {
  deploymentId: string;
}

export interface ProbeAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export async function send(origin: string, call: BenchRequest): Promise<ProbeAnswer> {
  const answer = await request(`${origin}${call.path}`, {
    method: call.method,
    headers: call.headers,
    body: call.body,
  });
  return { status: answer.statusCode, headers: answer.headers, body: await answer.body.text() };
}

async function admin(
  origin: string,
  masterKey: string,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
) {
  const answer = await request(`${origin}/admin${path}`, {
    method,
    // No content-type without a body: the server refuses an empty JSON body (a DELETE's).
    headers:
      body === undefined
        ? { authorization: `Bearer ${masterKey}` }
        : { authorization: `Bearer ${masterKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await answer.body.text();
  if (answer.statusCode >= 300) throw new Error(`${method} /admin${path}: ${answer.statusCode} ${text}`);
  return (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
}

/** `fakeBase`: the fake's origin, or a path under it (`<origin>/n/1000`, bench/fake-upstream.ts). */
export async function createBenchDeployment(
  origin: string,
  masterKey: string,
  fakeBase: string,
  publicModel = BENCH_MODEL,
) {
  const deployment = await admin(origin, masterKey, 'POST', '/deployments', {
    publicModel,
    provider: 'openai-compatible',
    upstreamModel: FAKE_MODEL,
    baseUrl: `${fakeBase}/v1`,
    pricing: PRICING,
  });
  return String(deployment.id);
}

export async function createBenchKey(
  origin: string,
  masterKey: string,
  allowedModels: readonly string[] = [BENCH_MODEL],
): Promise<BenchKey> {
  const key = await admin(origin, masterKey, 'POST', '/keys', {
    name: 'bench',
    allowedModels,
    ...KEY_LIMITS,
  });
  return { keyId: String(key.id), virtualKey: String(key.key) };
}

/** Disables a key (`PATCH enabled: false`): its calls are refused with 401 once the gateway sees it. */
export async function disableKey(origin: string, masterKey: string, keyId: string): Promise<void> {
  await admin(origin, masterKey, 'PATCH', `/keys/${keyId}`, { enabled: false });
}

/**
 * An extension whose `beforeUpstream` does nothing, on the bench model: what the isolate boundary
 * itself costs a call (the copy of the call in, the result out, the breaker).
 */
export async function createTrivialExtension(
  origin: string,
  masterKey: string,
  limits?: { timeoutMs: number },
): Promise<void> {
  await admin(origin, masterKey, 'POST', '/extensions', {
    id: 'bench-trivial',
    models: [BENCH_MODEL],
    source: 'export function beforeUpstream(call) {}',
    ...(limits === undefined ? {} : { limits }),
  });
}

/** Turns the trivial extension off or on again: its isolate is kept, only whether it applies changes. */
export async function setTrivialExtensionEnabled(
  origin: string,
  masterKey: string,
  enabled: boolean,
): Promise<void> {
  await admin(origin, masterKey, 'PATCH', '/extensions/bench-trivial', { enabled });
}

/**
 * Removes the extension again: it is stored in the run's database, which the gateways started
 * after (h) share, and they would otherwise measure it too.
 */
export async function deleteTrivialExtension(origin: string, masterKey: string): Promise<void> {
  await admin(origin, masterKey, 'DELETE', '/extensions/bench-trivial');
}

/** The key's recorded spend: proof that cost was counted (read after the gateway flushed it). */
export async function keySpendCents(origin: string, masterKey: string, keyId: string): Promise<number> {
  const key = await admin(origin, masterKey, 'GET', `/keys/${keyId}`);
  return Number(key.spendCents);
}

/**
 * Waits until `call` is answered 2xx `times` in a row: every worker has loaded the configuration.
 * Returns the last answer, or the first non-2xx answer that persists until the timeout.
 */
export async function waitServing(origin: string, call: BenchRequest, times = 20): Promise<ProbeAnswer> {
  const deadline = Date.now() + SERVING_TIMEOUT_MS;
  let streak = 0;
  for (;;) {
    const answer = await send(origin, call);
    if (answer.status >= 200 && answer.status < 300) {
      if (++streak >= times) return answer;
      continue;
    }
    streak = 0;
    if (Date.now() > deadline) return answer;
    await delay(100);
  }
}
