/**
 * Grows a bench database to the configuration of budget line 5 (10,000 deployments, 100,000
 * virtual keys) without the admin API, which reloads the deployment directory after every write:
 * 10,000 creations would load it 10,000 times. Each new row is a copy of one the admin API
 * created, with only what must differ changed: its id (the repositories' own id functions), a
 * key's secret hash (`hashKeySecret` of a `generateKeySecret`, as VirtualKeyAdmin stores it) and
 * name, a deployment's public model when the copies are spread over models. So the gateway reads
 * them as it reads any row, and accepts the keys.
 */
import { hashKeySecret } from '../src/auth/key-hash.ts';
import { newDeploymentId } from '../src/deployments/deployment-repository.ts';
import { generateKeySecret } from '../src/keys/key-secret.ts';
import { newVirtualKeyId } from '../src/keys/virtual-key-repository.ts';
import { withConnection } from './postgres-query.ts';

/** Rows per statement: each carries its arrays as parameters. */
const BATCH = 10_000;

/** A copied key: its id and the secret a client presents. */
export interface CopiedKey {
  keyId: string;
  virtualKey: string;
}

/**
 * `insert ... select` of the template row with some columns replaced: jsonb_populate_record keeps
 * every other column of the template as it is, so the copy needs no list of the table's columns.
 */
function copyStatement(table: string, columns: readonly string[]): string {
  const fields = columns.map((column, i) => `'${column}', n.c${i}`).join(', ');
  const arrays = columns.map((_, i) => `$${i + 2}::text[]`).join(', ');
  const names = columns.map((_, i) => `c${i}`).join(', ');
  return `insert into ${table}
    select (jsonb_populate_record(t, jsonb_build_object(${fields}))).*
    from ${table} t, unnest(${arrays}) as n(${names})
    where t.id = $1`;
}

async function copyRows(
  databaseUrl: string,
  table: string,
  templateId: string,
  columns: Record<string, string[]>,
): Promise<void> {
  const names = Object.keys(columns);
  const count = columns[names[0]].length;
  await withConnection(databaseUrl, async (query) => {
    for (let from = 0; from < count; from += BATCH) {
      const values = names.map((name) => columns[name].slice(from, from + BATCH));
      await query(copyStatement(table, names), [templateId, ...values]);
    }
  });
}

/**
 * `count` copies of deployment `templateId`: in its own public model (`pool`) or each in a model
 * of its own, `<model>-<n>` (`models`).
 */
export async function copyDeployments(
  databaseUrl: string,
  templateId: string,
  model: string,
  count: number,
  spread: 'pool' | 'models',
): Promise<void> {
  const ids = Array.from({ length: count }, () => newDeploymentId());
  const models = ids.map((_, n) => (spread === 'pool' ? model : `${model}-${n}`));
  await copyRows(databaseUrl, 'deployments', templateId, { id: ids, public_model: models });
}

/** `count` copies of key `templateId`, each with a secret of its own; returns them. */
export async function copyKeys(databaseUrl: string, templateId: string, count: number): Promise<CopiedKey[]> {
  const keys = Array.from({ length: count }, () => ({
    keyId: newVirtualKeyId(),
    virtualKey: generateKeySecret(),
  }));
  await copyRows(databaseUrl, 'virtual_keys', templateId, {
    id: keys.map((key) => key.keyId),
    // bytea from text in Postgres's hex form.
    key_hash: keys.map((key) => `\\x${hashKeySecret(key.virtualKey).toString('hex')}`),
    name: keys.map((_, n) => `bench-${n}`),
  });
  return keys;
}
