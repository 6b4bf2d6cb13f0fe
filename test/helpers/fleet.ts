import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { type ChildGateway, startChildGateway } from './child-gateway.ts';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from './database.ts';
import type { TestGateway } from './gateway.ts';
import { testSecrets } from './secrets.ts';

/** Gateway processes sharing one Postgres and one Redis, as replicas behind a load balancer do. */
export interface Fleet {
  database: TestDatabase;
  members: ChildGateway[];
  /** Each member as the admin helpers take a gateway (its URL and the shared master key). */
  handles: TestGateway[];
  /** The shared Redis key prefix. */
  prefix: string;
  /** The next member, round-robin: what a load balancer in front of the fleet would pick. */
  next(): TestGateway;
  /** An OpenAI client per member for `secret`, without retries. */
  clients(secret: string): OpenAI[];
  /** Stops every member (SIGTERM) and drops the database; resolves with their exit codes. */
  close(): Promise<(number | null)[]>;
}

/**
 * Starts `size` gateways (`node src/main.ts serve`, each its own process) on one fresh database,
 * the local Redis (or `env`'s) under one key prefix, and one set of secrets.
 */
export async function startFleet(
  size: number,
  env: Record<string, string> = {},
  /** A database the test prepared (migrated, with its own probes); a fresh one by default. */
  given?: TestDatabase,
): Promise<Fleet> {
  const database = given ?? (await createTestDatabase());
  const prefix = `sy-fleet-${randomBytes(4).toString('hex')}:`;
  const shared: Record<string, string> = {
    ...testSecrets(),
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    ...env,
  };
  // The first one alone: it migrates the database, which the others then find current.
  const members = [await startChildGateway({ database, env: shared })];
  const rest = await Promise.allSettled(
    Array.from({ length: size - 1 }, () => startChildGateway({ database, env: shared })),
  );
  for (const started of rest) if (started.status === 'fulfilled') members.push(started.value);
  const failed = rest.find((started) => started.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(members.map((member) => member.stop()));
    await database.drop();
    throw failed.reason;
  }
  // The shared master key: the child helper reports the one it generated, which `shared` replaced.
  const handles = members.map((member) => ({ url: member.url, masterKey: shared.MASTER_KEY }) as TestGateway);
  let turn = 0;
  return {
    database,
    members,
    handles,
    prefix,
    next: () => handles[turn++ % handles.length],
    clients: (secret) =>
      handles.map((gw) => new OpenAI({ apiKey: secret, baseURL: `${gw.url}/v1`, maxRetries: 0 })),
    close: async () => {
      const codes = await Promise.all(members.map((member) => member.stop()));
      await database.drop();
      return codes;
    },
  };
}
