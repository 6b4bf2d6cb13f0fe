import assert from 'node:assert/strict';
import type { TestGateway } from './gateway.ts';

type Json = Record<string, unknown>;

/** A call on the admin surface with the master key; fails the test unless it succeeds. */
export async function admin<T = Json>(
  gw: TestGateway,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${gw.url}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} /admin${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

/** The fields of `POST /admin/deployments` the suites set. */
export interface DeploymentInput {
  publicModel: string;
  provider: string;
  upstreamModel: string;
  baseUrl?: string;
  apiKey?: string;
  enabled?: boolean;
  weight?: number;
  rpmLimit?: number;
  tpmLimit?: number;
  pricing?: Json;
  profile?: Json;
  providerOptions?: Json;
}

export function createDeployment(gw: TestGateway, input: DeploymentInput): Promise<{ id: string }> {
  return admin(gw, 'POST', '/deployments', input);
}

/** A deployment on an OpenAI-format fake, serving `gpt-4o-mini` unless the fields say otherwise. */
export function createOpenAIDeployment(
  gw: TestGateway,
  fields: Omit<DeploymentInput, 'provider' | 'upstreamModel'> & Partial<DeploymentInput>,
): Promise<{ id: string }> {
  return createDeployment(gw, { provider: 'openai', upstreamModel: 'gpt-4o-mini', ...fields });
}

/** The fields of `POST /admin/keys` the suites set. */
export interface KeyInput {
  name: string;
  allowedModels: string[];
  rpmLimit?: number;
  tpmLimit?: number;
  budgetCents?: number;
  teamId?: string;
}

/** Issues a virtual key; `key` is its secret. */
export function createKey(gw: TestGateway, input: KeyInput): Promise<{ id: string; key: string }> {
  return admin(gw, 'POST', '/keys', input);
}
