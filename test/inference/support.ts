import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { AnthropicFake } from '../fakes/anthropic-fake.ts';
import { BedrockFake } from '../fakes/bedrock-fake.ts';
import { GeminiFake } from '../fakes/gemini-fake.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { admin, createDeployment, createKey as issueKey } from '../helpers/admin-api.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

/** Upstream keys the fakes demand: a call that reaches a fake without them fails loudly. */
export const OPENAI_UPSTREAM_KEY = 'sk-upstream-openai-0001';
export const ANTHROPIC_UPSTREAM_KEY = 'sk-ant-upstream-0001';

export type Json = Record<string, unknown>;

export { admin, createDeployment } from '../helpers/admin-api.ts';
export { openaiClient } from '../helpers/openai-client.ts';

/** The secret of a new virtual key allowed `allowedModels`. */
export async function createKey(gw: TestGateway, allowedModels: string[] = ['*']): Promise<string> {
  return (await issueKey(gw, { name: 'inference-test', allowedModels })).key;
}

/** The official Anthropic client on the gateway (it appends `/v1/messages` itself). */
export function anthropicClient(gw: TestGateway, key: string): Anthropic {
  return new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
}

/** A gateway with one fake of each upstream format and a deployment on each. */
export interface Upstreams {
  gw: TestGateway;
  openai: OpenAIFake;
  anthropic: AnthropicFake;
  gemini: GeminiFake;
  bedrock: BedrockFake;
  /** A virtual key allowed every model. */
  key: string;
  close(): Promise<void>;
}

/**
 * Public models served by the fakes:
 *   gpt      openai     gpt-4o-mini                 (chat, responses, embeddings, images, audio: see below)
 *   claude   anthropic  claude-sonnet-4-5
 *   gemini   gemini     gemini-2.5-flash
 *   nova     bedrock    anthropic.claude-3-5-sonnet (Converse: `claudeApi: 'converse'`)
 *   compat   openai-compatible gpt-4o-mini          (chat, embeddings; responses translated)
 *   embed    openai     text-embedding-3-small
 *   image    openai     gpt-image-1
 *   dalle    openai     dall-e-2
 *   whisper  openai     whisper-1
 */
export async function startUpstreams(): Promise<Upstreams> {
  const openai = await new OpenAIFake({ apiKey: OPENAI_UPSTREAM_KEY }).start();
  const anthropic = await new AnthropicFake({ apiKey: ANTHROPIC_UPSTREAM_KEY }).start();
  const gemini = await GeminiFake.start();
  const bedrock = await BedrockFake.start();
  const gw = await startTestGateway();
  const openaiDeployment = (publicModel: string, upstreamModel: string) =>
    createDeployment(gw, {
      publicModel,
      provider: 'openai',
      upstreamModel,
      baseUrl: openai.baseUrl,
      apiKey: OPENAI_UPSTREAM_KEY,
    });
  await openaiDeployment('gpt', 'gpt-4o-mini');
  await openaiDeployment('embed', 'text-embedding-3-small');
  await openaiDeployment('image', 'gpt-image-1');
  await openaiDeployment('dalle', 'dall-e-2');
  await openaiDeployment('whisper', 'whisper-1');
  await createDeployment(gw, {
    publicModel: 'compat',
    provider: 'openai-compatible',
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
  await createDeployment(gw, {
    publicModel: 'gemini',
    provider: 'gemini',
    upstreamModel: 'gemini-2.5-flash',
    baseUrl: gemini.baseUrl,
    apiKey: gemini.apiKey,
  });
  await createDeployment(gw, {
    publicModel: 'nova',
    provider: 'bedrock',
    upstreamModel: 'anthropic.claude-3-5-sonnet-20241022-v2:0',
    baseUrl: bedrock.baseUrl,
    apiKey: bedrock.apiKey,
    // Converse, which these tests exercise; Claude's default, InvokeModel, is bedrock-claude.test.ts's.
    providerOptions: { region: bedrock.region, claudeApi: 'converse' },
  });
  const key = await createKey(gw);
  return {
    gw,
    openai,
    anthropic,
    gemini,
    bedrock,
    key,
    close: async () => {
      await gw.close();
      await Promise.all([openai.close(), anthropic.close(), gemini.close(), bedrock.close()]);
    },
  };
}

/** Retries and cooldowns off, so that each injected upstream error is the call's answer. */
export async function answerFirstFailure(gw: TestGateway): Promise<void> {
  await admin(gw, 'PUT', '/router-settings', {
    retries: { maxAttempts: 1, backoffMs: 0 },
    cooldown: { failureThreshold: 1000, windowMs: 1000, durationMs: 0 },
  });
}

/** The error a call failed with; fails the test when it succeeded. */
export async function rejection<E extends Error>(call: Promise<unknown>): Promise<E> {
  try {
    await call;
  } catch (error) {
    return error as E;
  }
  assert.fail('the call succeeded');
}

/** A raw /v1 call, for what the SDKs hide (headers, raw bodies, exact status). */
export async function post(
  gw: TestGateway,
  key: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: () => Json }> {
  const form = body instanceof FormData;
  const response = await fetch(`${gw.url}/v1${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      ...(form ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: form || typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as Json };
}

/** The JSON body of the last request a fake received. */
export function lastJson(fake: { lastRequest: { body: unknown } | undefined }): Json {
  const body = fake.lastRequest?.body;
  assert.ok(typeof body === 'object' && body !== null, 'the fake received a JSON body');
  return body as Json;
}

/** A plain chat call (`hello`) and a streamed one (`streamed`), each echoed by an upstream fake. */
export async function assertPlainAndStreamedEcho(client: OpenAI, model: string): Promise<void> {
  const plain = await client.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'hello' }],
  });
  assert.equal(plain.choices[0].message.content, 'echo: hello');
  const stream = await client.chat.completions.create({
    model,
    stream: true,
    messages: [{ role: 'user', content: 'streamed' }],
  });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  assert.equal(text, 'echo: streamed');
}

/** `POST /admin/deployments/resolve` as sent, for the status and the error's `param` of a refusal. */
export function resolveDeployment(gw: TestGateway, fields: Record<string, unknown>): Promise<Response> {
  return fetch(`${gw.url}/admin/deployments/resolve`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(fields),
  });
}
