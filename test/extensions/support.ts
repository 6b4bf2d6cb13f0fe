import assert from 'node:assert/strict';
import { AnthropicFake } from '../fakes/anthropic-fake.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { admin, createDeployment } from '../helpers/admin-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../helpers/gateway.ts';

import { ANTHROPIC_UPSTREAM_KEY, type Json, OPENAI_UPSTREAM_KEY } from '../inference/support.ts';

/** A gateway with a `gpt` (OpenAI format) and a `claude` (Anthropic) model on fakes, and a key allowed both. */
export interface ExtensionsRig {
  gw: TestGateway;
  openai: OpenAIFake;
  anthropic: AnthropicFake;
  key: string;
  close(): Promise<void>;
}

export async function startRig(options: TestGatewayOptions = {}): Promise<ExtensionsRig> {
  const openai = await new OpenAIFake({ apiKey: OPENAI_UPSTREAM_KEY }).start();
  const anthropic = await new AnthropicFake({ apiKey: ANTHROPIC_UPSTREAM_KEY }).start();
  const gw = await startTestGateway(options);
  await createDeployment(gw, {
    publicModel: 'gpt',
    provider: 'openai',
    upstreamModel: 'gpt-4o-mini',
    baseUrl: openai.baseUrl,
    apiKey: OPENAI_UPSTREAM_KEY,
  });
  await createDeployment(gw, {
    publicModel: 'claude',
    provider: 'anthropic',
    upstreamModel: 'claude-sonnet-4-5',
    baseUrl: anthropic.url,
    apiKey: ANTHROPIC_UPSTREAM_KEY,
  });
  const { key } = await admin<{ key: string }>(gw, 'POST', '/keys', {
    name: 'ext-test',
    allowedModels: ['*'],
  });
  return {
    gw,
    openai,
    anthropic,
    key,
    close: async () => {
      await gw.close();
      await Promise.all([openai.close(), anthropic.close()]);
    },
  };
}

/** An admin call whose status the test checks itself. */
export async function adminRaw(
  gw: TestGateway,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${gw.url}/admin${path}`, {
    method,
    headers: {
      authorization: `Bearer ${gw.masterKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

/** Deletes an extension; fails the test unless it was there. */
export async function deleteExtension(gw: TestGateway, id: string): Promise<void> {
  const { status } = await adminRaw(gw, 'DELETE', `/extensions/${id}`);
  assert.equal(status, 200, `DELETE /admin/extensions/${id}`);
}

/** A chat completion by plain fetch, so the test sees the status, headers and error body as sent. */
export async function chat(
  rig: ExtensionsRig,
  content: string,
  extra: Json = {},
): Promise<{ status: number; headers: Headers; body: Json }> {
  const response = await fetch(`${rig.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${rig.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content }], ...extra }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
}

/** The text the fake upstream answered (it echoes the last user message: `echo: <text>`). */
export function answerText(body: Json): string {
  const choices = body.choices as { message: { content: string } }[];
  return choices[0].message.content;
}

/** One hook as the call's record shows it (`GET /admin/logs`, `extensions`). */
export interface RecordedRun {
  extensionId: string;
  hook: string;
  outcome: string;
  durationMs: number;
  failure: string | null;
}

/** The extension hooks on the record of the call `requestId` (records are written asynchronously). */
export async function recordedRuns(gw: TestGateway, requestId: string): Promise<RecordedRun[]> {
  let runs: RecordedRun[] = [];
  await eventually(async () => {
    const page = await admin<{ data: { status: string; extensions: RecordedRun[] }[] }>(
      gw,
      'GET',
      `/logs?requestId=${requestId}`,
    );
    const record = page.data[0];
    assert.ok(record !== undefined && record.status !== 'in_progress', `the record of ${requestId}`);
    runs = record.extensions;
  });
  return runs;
}

/** An extension's state as the admin API shows it. */
export async function extensionState(
  gw: TestGateway,
  id: string,
): Promise<{ state: string; consecutiveFailures: number; lastFailure: { reason: string } | null }> {
  return admin(gw, 'GET', `/extensions/${id}`);
}
