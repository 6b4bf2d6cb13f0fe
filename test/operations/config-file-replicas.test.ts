import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { testSecrets } from '../helpers/secrets.ts';
import { documentedModule } from './support.ts';

const UPSTREAM_KEY = 'sk-upstream-config-file-0001';
const KEY_SECRET = 'sk-sy-config-file-replica-preshared-0000000001';
/** The file refers to it; a start reads references from its own environment. */
const KEY_VARIABLE = 'SY_TEST_CONFIG_FILE_KEY';

describe('CONFIG_FILE: replicas started with one file', () => {
  let fake: OpenAIFake;
  let database: TestDatabase;
  const gateways: TestGateway[] = [];
  before(async () => {
    fake = await new OpenAIFake({ apiKey: UPSTREAM_KEY }).start();
    database = await createTestDatabase();
    const dir = await mkdtemp(join(tmpdir(), 'sy-config-file-'));
    await writeFile(join(dir, 'upstream.key'), UPSTREAM_KEY);
    await writeFile(join(dir, 'block-words.js'), await documentedModule());
    const file = join(dir, 'switchyard.yaml');
    await writeFile(
      file,
      [
        'deployments:',
        '  - name: gpt-main',
        '    publicModel: gpt',
        '    provider: openai',
        '    upstreamModel: gpt-4o-mini',
        `    baseUrl: ${fake.baseUrl}`,
        '    apiKeyFile: upstream.key',
        'keys:',
        '  - name: app',
        '    allowedModels: [gpt]',
        `    secret: \${env:${KEY_VARIABLE}}`,
        'extensions:',
        '  - name: block-words',
        '    sourceFile: block-words.js',
        '    config: { words: [password] }',
        '',
      ].join('\n'),
    );
    process.env[KEY_VARIABLE] = KEY_SECRET;
    // Replicas share their secrets, as the environment of one deployment gives them.
    const env = { ...testSecrets(), CONFIG_FILE: file };
    const started = await Promise.allSettled([
      startTestGateway({ database, env }),
      startTestGateway({ database, env }),
    ]);
    for (const start of started) if (start.status === 'fulfilled') gateways.push(start.value);
    for (const start of started) if (start.status === 'rejected') throw start.reason;
  });
  after(async () => {
    for (const gw of gateways) await gw.close();
    await database?.drop();
    await fake?.close();
  });

  it('applies the file once, and each replica serves it from its first call', async () => {
    for (const gw of gateways) {
      const listed = await fetch(`${gw.url}/admin/deployments`, {
        headers: { authorization: `Bearer ${gw.masterKey}` },
      });
      const body = (await listed.json()) as { data: { publicModel: string }[] };
      assert.deepEqual(
        body.data.map((d) => d.publicModel),
        ['gpt'],
      );
      const answer = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY_SECRET}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(answer.status, 200, await answer.text());
      const blocked = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY_SECRET}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'my password' }] }),
      });
      assert.equal(blocked.status, 400, "the file's extension runs on every replica");
      assert.match(await blocked.text(), /blocked word: password/);
    }
  });

  it('warns an admin API edit of a managed object that the file will overwrite it', async () => {
    const [gw] = gateways;
    const headers = { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' };
    const listed = (await (await fetch(`${gw.url}/admin/deployments`, { headers })).json()) as {
      data: { id: string }[];
    };
    const patched = await fetch(`${gw.url}/admin/deployments/${listed.data[0].id}`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ weight: 2 }),
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.headers.get('x-switchyard-managed-by'), 'config-file');
    assert.match(
      patched.headers.get('x-switchyard-warning') ?? '',
      /deployment "gpt-main" is managed by a configuration file/,
    );
    const made = await fetch(`${gw.url}/admin/teams`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'adhoc' }),
    });
    const team = (await made.json()) as { id: string };
    const plain = await fetch(`${gw.url}/admin/teams/${team.id}`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ rpmLimit: 5 }),
    });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.get('x-switchyard-managed-by'), null, 'an admin-made object is not managed');
    const extension = await fetch(`${gw.url}/admin/extensions/block-words`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ enabled: false }),
    });
    assert.equal(extension.status, 200);
    assert.match(
      extension.headers.get('x-switchyard-warning') ?? '',
      /extension "block-words" is managed by a configuration file/,
    );
  });
});
