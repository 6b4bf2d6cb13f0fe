import { randomBytes } from 'node:crypto';
import { hashKeySecret, KEY_SECRET_PREFIX } from '../../src/auth/key-hash.ts';
import { connectSql } from './sql.ts';

/** Inserts a virtual key straight into the database (for tests of layers below the admin API). */
export async function insertVirtualKey(
  databaseUrl: string,
  fields: { allowedModels?: string[]; enabled?: boolean } = {},
): Promise<{ id: string; secret: string }> {
  const secret = `${KEY_SECRET_PREFIX}${randomBytes(24).toString('base64url')}`;
  const id = `key_${randomBytes(8).toString('hex')}`;
  const sql = connectSql(databaseUrl, 1);
  try {
    await sql`insert into virtual_keys (id, name, key_hash, allowed_models, enabled)
      values (${id}, 'seeded', ${hashKeySecret(secret)}, ${fields.allowedModels ?? ['*']}, ${fields.enabled ?? true})`;
  } finally {
    await sql.end();
  }
  return { id, secret };
}
