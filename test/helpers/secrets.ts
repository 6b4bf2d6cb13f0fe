import { randomBytes } from 'node:crypto';

/** Fresh secrets for a test gateway, the same way an operator would set them in the environment. */
export function testSecrets(): Record<string, string> {
  const keyring = { k1: randomBytes(32).toString('hex') };
  return {
    MASTER_KEY: `sk-test-master-${randomBytes(16).toString('hex')}`,
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ENCRYPTION_KEYRING: JSON.stringify(keyring),
    ACTIVE_ENCRYPTION_KEY_ID: 'k1',
  };
}
