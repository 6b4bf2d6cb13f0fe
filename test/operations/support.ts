import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMain } from '../helpers/child.ts';
import { createTestDatabase, migrateTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { testSecrets } from '../helpers/secrets.ts';
import { connectSql, type TestSql } from '../helpers/sql.ts';

const CONFIGURATION_DOC = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));

/** The complete example of docs/configuration.md, Configuration file: the first yaml block of that section. */
export async function documentedExample(): Promise<string> {
  const doc = await readFile(CONFIGURATION_DOC, 'utf8');
  const section = doc.slice(doc.indexOf('## Configuration file'));
  const block = /```yaml\n([\s\S]*?)```/.exec(section);
  if (block === null) throw new Error('docs/configuration.md: no yaml example under Configuration file');
  return block[1];
}

/** The extension module shown under the example (the first js block after it): `extensions/block-words.js`. */
export async function documentedModule(): Promise<string> {
  const doc = await readFile(CONFIGURATION_DOC, 'utf8');
  const section = doc.slice(doc.indexOf('## Configuration file'));
  const block = /```js\n([\s\S]*?)```/.exec(section);
  if (block === null) throw new Error('docs/configuration.md: no js module under Configuration file');
  return block[1];
}

/** The secrets the documented example refers to. */
export const EXAMPLE_SECRETS = {
  OPENAI_API_KEY: 'sk-openai-example-0001',
  ANTHROPIC_API_KEY: 'sk-ant-example-0001',
  RESEARCH_NOTEBOOK_KEY: 'sk-sy-research-notebook-preshared-000000000001',
  AZURE_KEY_FILE_CONTENT: 'azure-example-key-0001',
};

/** A migrated database, the environment a CLI run needs on it, and a folder for configuration files. */
export interface CliSetup {
  database: TestDatabase;
  env: Record<string, string>;
  sql: TestSql;
  dir: string;
  /** Writes `text` as `name` in the folder (subfolders made) and returns its path. */
  write(name: string, text: string): Promise<string>;
  run(args: string[], env?: Record<string, string>): Promise<{ code: number | null; output: string }>;
  close(): Promise<void>;
}

export async function cliSetup(): Promise<CliSetup> {
  const database = await createTestDatabase();
  await migrateTestDatabase(database.url);
  const dir = await mkdtemp(join(tmpdir(), 'sy-config-'));
  const { AZURE_KEY_FILE_CONTENT, ...variables } = EXAMPLE_SECRETS;
  const env = { ...testSecrets(), DATABASE_URL: database.url, LOG_LEVEL: 'warn', ...variables };
  const sql = connectSql(database.url, 2);
  const write = async (name: string, text: string) => {
    const path = join(dir, name);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
    return path;
  };
  await write('secrets/azure-openai.key', `${AZURE_KEY_FILE_CONTENT}\n`);
  await write('extensions/block-words.js', await documentedModule());
  return {
    database,
    env,
    sql,
    dir,
    write,
    run: (args, extra = {}) => runMain(args, { ...env, ...extra }),
    close: async () => {
      await sql.end();
      await database.drop();
    },
  };
}
