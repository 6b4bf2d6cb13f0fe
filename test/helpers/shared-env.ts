import type { TestGateway } from './gateway.ts';

/** What a second gateway must share with the first to share its state (one database, one Redis prefix). */
const SHARED = [
  'MASTER_KEY',
  'CREDENTIALS_ENCRYPTION_KEY',
  'ENCRYPTION_KEYRING',
  'ACTIVE_ENCRYPTION_KEY_ID',
  'REDIS_KEY_PREFIX',
];

/** The secrets and the Redis prefix a second gateway needs to share the first one's state. */
export function sharedEnv(gw: TestGateway): Record<string, string> {
  return Object.fromEntries(
    SHARED.filter((name) => gw.env[name] !== undefined).map((name) => [name, gw.env[name]]),
  );
}
