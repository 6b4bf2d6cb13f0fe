import assert from 'node:assert/strict';
import { createClient } from '@redis/client';
import OpenAI from 'openai';
import type { CacheStore } from '../../src/cache/cache-store.ts';
import { LIMIT_KEYS, RATE_WINDOW_MS } from '../../src/limits/limit-keys.ts';
import { createOpenAIDeployment, createKey as issueKey } from '../helpers/admin-api.ts';
import { TEST_REDIS_URL } from '../helpers/database.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { connectSql } from '../helpers/sql.ts';

export { waitUntil } from '../helpers/eventually.ts';
export { openaiClient as client } from '../helpers/openai-client.ts';
export { sharedEnv } from '../helpers/shared-env.ts';

export interface DeploymentFields {
  publicModel: string;
  upstreamModel?: string;
  baseUrl: string;
  pricing?: {
    inputCentsPerMTok: number;
    outputCentsPerMTok: number;
    cachedInputCentsPerMTok?: number;
  };
}

/** An OpenAI-format deployment, `gpt-4o-mini` unless the fields say otherwise. */
export function createDeployment(gw: TestGateway, fields: DeploymentFields): Promise<{ id: string }> {
  return createOpenAIDeployment(gw, { apiKey: 'sk-upstream-test', ...fields });
}

export interface KeyFields {
  rpmLimit?: number;
  tpmLimit?: number;
  budgetCents?: number;
}

/** A virtual key allowed every model; `key` is its secret. */
export function createKey(gw: TestGateway, fields: KeyFields = {}): Promise<{ id: string; key: string }> {
  return issueKey(gw, { name: 'limits-test', allowedModels: ['*'], ...fields });
}

/** One short chat call: 1 prompt word; the fake answers `echo: hi` (2 words) cut at max_tokens. */
export function hi(model: string, maxTokens = 2) {
  return { model, messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: maxTokens };
}

/** The error a call failed with; fails the test when it succeeded. */
export async function failure(call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof OpenAI.APIError, String(error));
    return error;
  }
  assert.fail('expected the call to fail');
}

/** Tokens in the key's TPM window, as the gateway's cache store has them. */
export async function tokensUsed(cache: CacheStore, keyId: string, limit: number): Promise<number> {
  return (await cache.windowState(LIMIT_KEYS.tpm(keyId), limit, RATE_WINDOW_MS)).used;
}

export async function spendCents(databaseUrl: string, keyId: string): Promise<number> {
  const sql = connectSql(databaseUrl, 1);
  try {
    const [row] = await sql<{
      spend_cents: string;
    }>`select spend_cents from virtual_keys where id = ${keyId}`;
    return Number(row.spend_cents);
  } finally {
    await sql.end();
  }
}

/** The sum of the costs in the key's request records (variant B `gateway_operations`). */
/** Calls whose record is final (an operation is first written `in_progress`, then finalized). */
export async function recordedCostCents(
  databaseUrl: string,
  keyId: string,
): Promise<{ calls: number; cents: number }> {
  const sql = connectSql(databaseUrl, 1);
  try {
    const [row] = await sql<{ calls: string; cents: string | null }>`
      select count(*) as calls, sum(cost_cents) as cents from gateway_operations
      where key_id = ${keyId} and status <> 'in_progress'`;
    return { calls: Number(row.calls), cents: Number(row.cents ?? 0) };
  } finally {
    await sql.end();
  }
}

/** Deletes every Redis key of one test gateway's prefix (never the whole Redis). */
export async function deletePrefixKeys(prefix: string): Promise<number> {
  const redis = createClient({ url: TEST_REDIS_URL });
  await redis.connect();
  let deleted = 0;
  try {
    for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      if (keys.length > 0) deleted += await redis.del(keys);
    }
  } finally {
    await redis.close();
  }
  return deleted;
}

export function closeTo(actual: number, expected: number, message?: string): void {
  assert.ok(Math.abs(actual - expected) < 1e-9, `${message ?? ''} expected ${expected}, got ${actual}`);
}
