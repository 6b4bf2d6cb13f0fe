import { randomBytes } from 'node:crypto';
import type { FakeServer } from '../fakes/fake-server.ts';
import { admin, createOpenAIDeployment } from '../helpers/admin-api.ts';
import type { TestGateway } from '../helpers/gateway.ts';

type Json = Record<string, unknown>;

export { admin } from '../helpers/admin-api.ts';
export { eventually } from '../helpers/eventually.ts';
export { sharedEnv } from '../helpers/shared-env.ts';

/** A public model name no other test of the file uses, so cooldown state never leaks between tests. */
export function modelName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

export interface DeploymentFields {
  publicModel: string;
  baseUrl: string;
  provider?: string;
  upstreamModel?: string;
  weight?: number;
  rpmLimit?: number;
  tpmLimit?: number;
}

/** An OpenAI-format deployment (`gpt-4o-mini` unless the fields say otherwise); returns its id. */
export async function createDeployment(gw: TestGateway, fields: DeploymentFields): Promise<string> {
  return (await createOpenAIDeployment(gw, { apiKey: 'sk-upstream-router-test', ...fields })).id;
}

/** Router settings for tests: no backoff, short timeouts unless a test says otherwise. */
export async function putRouterSettings(gw: TestGateway, settings: Json): Promise<void> {
  await admin(gw, 'PUT', '/router-settings', { retries: { maxAttempts: 1, backoffMs: 0 }, ...settings });
}

export interface Answer {
  status: number;
  headers: Headers;
  body: Json;
  elapsedMs: number;
}

/** A non-streamed chat call through the gateway with the master key (or `token`). */
export async function chat(
  gw: TestGateway,
  model: string,
  options: { token?: string; content?: string } = {},
): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.token ?? gw.masterKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: options.content ?? 'hello router' }] }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: JSON.parse(text) as Json,
    elapsedMs: performance.now() - started,
  };
}

export function errorCode(answer: Answer): string | undefined {
  return (answer.body.error as { code?: string } | undefined)?.code;
}

/** An OpenAI-shaped upstream error body. */
export function upstreamError(
  code: string | null,
  type = 'server_error',
  message = 'upstream says no',
): Json {
  return { error: { message, type, param: null, code } };
}

/** When each request reached the fake (performance.now() ms), by wrapping its request log. */
export function requestTimes(fake: FakeServer): number[] {
  const times: number[] = [];
  const requests = fake.requests;
  const push = requests.push.bind(requests);
  requests.push = (...items) => {
    for (let i = 0; i < items.length; i++) times.push(performance.now());
    return push(...items);
  };
  return times;
}
