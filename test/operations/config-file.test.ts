import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { keyringFromJson } from '../../src/crypto/index.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { type CliSetup, cliSetup, documentedExample, documentedModule, EXAMPLE_SECRETS } from './support.ts';

/** updated_at of every managed row, by table and name. */
async function stamps(setup: CliSetup): Promise<Map<string, string>> {
  const rows = await setup.sql`
    select 'deployment:' || config_name as name, updated_at::text as at from deployments
    union all select 'team:' || config_name, updated_at::text from teams
    union all select 'key:' || config_name, updated_at::text from virtual_keys
    union all select 'extension:' || config_name, updated_at::text from extensions`;
  return new Map(rows.map((row) => [row.name as string, row.at as string]));
}

describe('switchyard apply: the documented example', () => {
  let setup: CliSetup;
  let file: string;
  let example: string;
  before(async () => {
    setup = await cliSetup();
    example = await documentedExample();
    file = await setup.write('switchyard.yaml', example);
  });
  after(() => setup?.close());

  it('creates everything on an empty database, secrets by environment and by file', async () => {
    const { code, output } = await setup.run(['apply', file]);
    assert.equal(code, 0, output);
    assert.match(output, /^\+ deployment gpt-4o-openai: create$/m);
    assert.match(output, /^\+ team research: create$/m);
    assert.match(output, /^\+ extension block-words: create\n(?: {4}.*\n)* {4}source: set$/m);
    assert.match(output, /^8 to create, 1 to change, 0 to delete$/m);
    const deployments = await setup.sql`select * from deployments order by config_name`;
    assert.deepEqual(
      deployments.map((row) => row.config_name),
      ['claude', 'gpt-4o-azure', 'gpt-4o-openai', 'local-llama'],
    );
    const keyring = keyringFromJson(setup.env.ENCRYPTION_KEYRING, setup.env.ACTIVE_ENCRYPTION_KEY_ID);
    const credential = (name: string) => {
      const row = deployments.find((d) => d.config_name === name);
      return keyring.openString('deployment-credential', row?.api_key_envelope);
    };
    assert.equal(credential('gpt-4o-openai'), EXAMPLE_SECRETS.OPENAI_API_KEY);
    assert.equal(credential('gpt-4o-azure'), EXAMPLE_SECRETS.AZURE_KEY_FILE_CONTENT);
    assert.equal(
      deployments.find((d) => d.config_name === 'gpt-4o-azure')?.secret_ref,
      'secrets/azure-openai.key',
    );
    assert.equal(deployments.find((d) => d.config_name === 'local-llama')?.enabled, false);
    // The key without a secret got a generated one, printed once; the pre-shared one is never printed.
    assert.match(output, /key ci \(key_[^)]+\) secret, shown this once: sk-sy-/);
    assert.ok(!output.includes(EXAMPLE_SECRETS.RESEARCH_NOTEBOOK_KEY));
    assert.ok(!output.includes(EXAMPLE_SECRETS.OPENAI_API_KEY));
    assert.ok(!output.includes(EXAMPLE_SECRETS.AZURE_KEY_FILE_CONTENT));
    const [team] = await setup.sql`select id from teams where config_name = 'research'`;
    const [notebook] =
      await setup.sql`select team_id from virtual_keys where config_name = 'research-notebook'`;
    assert.equal(notebook.team_id, team.id);
    const [settings] = await setup.sql`select settings from router_settings`;
    assert.deepEqual(settings.settings.fallbacks.general, { 'gpt-4o': ['claude-sonnet'] });
    const [extension] = await setup.sql`select * from extensions where id = 'block-words'`;
    assert.equal(extension.config_name, 'block-words');
    assert.equal(extension.source_ref, 'extensions/block-words.js');
    assert.deepEqual(extension.models, ['gpt-4o']);
    assert.deepEqual(extension.config, { words: ['password'] });
    assert.equal(extension.timeout_ms, 100);
    assert.equal(
      keyring.openString('extension-artifact', extension.source_envelope),
      await documentedModule(),
    );
  });

  it('changes nothing when applied again: updatedAt stays', async () => {
    const before = await stamps(setup);
    const { code, output } = await setup.run(['apply', file]);
    assert.equal(code, 0, output);
    assert.match(output, /nothing to change/);
    assert.deepEqual(await stamps(setup), before);
  });

  it('updates exactly the one object whose field changed, and says from what to what', async () => {
    const before = await stamps(setup);
    const changed = example.replace('    weight: 3\n', '    weight: 5\n');
    assert.notEqual(changed, example);
    await setup.write('switchyard.yaml', changed);
    const { code, output } = await setup.run(['apply', file]);
    assert.equal(code, 0, output);
    assert.match(output, /^~ deployment gpt-4o-openai \(dep_[^)]+\): update$/m);
    assert.match(output, /^ {4}weight: 3 -> 5$/m);
    assert.match(output, /0 to create, 1 to change, 0 to delete/);
    const after = await stamps(setup);
    const moved = [...after].filter(([name, at]) => before.get(name) !== at).map(([name]) => name);
    assert.deepEqual(moved, ['deployment:gpt-4o-openai']);
    const [row] = await setup.sql`select weight from deployments where config_name = 'gpt-4o-openai'`;
    assert.equal(row.weight, 5);
  });

  it('--dry-run prints the plan and writes nothing', async () => {
    const before = await stamps(setup);
    await setup.write('switchyard.yaml', example.replace('    rpmLimit: 500\n', '    rpmLimit: 900\n'));
    const { code, output } = await setup.run(['apply', file, '--dry-run']);
    assert.equal(code, 0, output);
    assert.match(output, /^ {4}rpmLimit: 500 -> 900$/m);
    assert.match(output, /dry run: nothing was written/);
    assert.deepEqual(await stamps(setup), before);
    const [row] = await setup.sql`select rpm_limit from deployments where config_name = 'gpt-4o-openai'`;
    assert.equal(row.rpm_limit, 500);
  });

  it('sees a changed secret (environment or file) without ever printing it', async () => {
    await setup.write('switchyard.yaml', example.replace('    weight: 3\n', '    weight: 5\n'));
    await setup.write('secrets/azure-openai.key', 'azure-example-key-0002\n');
    const { code, output } = await setup.run(['apply', file], { OPENAI_API_KEY: 'sk-openai-example-0002' });
    assert.equal(code, 0, output);
    assert.match(output, /^~ deployment gpt-4o-openai .*\n {4}apiKey: changed$/m);
    assert.match(output, /^~ deployment gpt-4o-azure .*\n {4}apiKey: changed$/m);
    assert.ok(!output.includes('0002'), output);
    const keyring = keyringFromJson(setup.env.ENCRYPTION_KEYRING, setup.env.ACTIVE_ENCRYPTION_KEY_ID);
    const [row] =
      await setup.sql`select api_key_envelope from deployments where config_name = 'gpt-4o-openai'`;
    assert.equal(keyring.openString('deployment-credential', row.api_key_envelope), 'sk-openai-example-0002');
  });

  it('updates an extension whose module file changed, saying so without printing the code', async () => {
    const before = await stamps(setup);
    const module = await documentedModule();
    await setup.write('extensions/block-words.js', module.replace('status: 400', 'status: 403'));
    const { code, output } = await setup.run(['apply', file], { OPENAI_API_KEY: 'sk-openai-example-0002' });
    assert.equal(code, 0, output);
    assert.match(output, /^~ extension block-words \(block-words\): update\n {4}source: changed$/m);
    assert.ok(!output.includes('status: 403'), output);
    const moved = [...(await stamps(setup))].filter(([name, at]) => before.get(name) !== at);
    assert.deepEqual(
      moved.map(([name]) => name),
      ['extension:block-words'],
    );
    const keyring = keyringFromJson(setup.env.ENCRYPTION_KEYRING, setup.env.ACTIVE_ENCRYPTION_KEY_ID);
    const [row] = await setup.sql`select source_envelope from extensions where id = 'block-words'`;
    assert.match(keyring.openString('extension-artifact', row.source_envelope), /status: 403/);
    await setup.write('extensions/block-words.js', module);
    const back = await setup.run(['apply', file], { OPENAI_API_KEY: 'sk-openai-example-0002' });
    assert.match(back.output, /^0 to create, 1 to change, 0 to delete$/m);
  });

  it('keeps what the file no longer names unless --prune, and never prunes what the admin API made', async () => {
    await setup.sql`insert into deployments (id, public_model, provider, upstream_model, provider_options)
      values ('dep_made_by_admin_api', 'gpt-4o', 'openai', 'gpt-4o', '{}')`;
    const without = example.replace(/ {2}- name: local-llama\n(?: {4}.*\n)+/, '');
    assert.ok(!without.includes('local-llama'));
    await setup.write('switchyard.yaml', without);
    const kept = await setup.run(['apply', file], { OPENAI_API_KEY: 'sk-openai-example-0002' });
    assert.equal(kept.code, 0, kept.output);
    assert.equal((await setup.sql`select 1 from deployments where config_name = 'local-llama'`).length, 1);
    const pruned = await setup.run(['apply', file, '--prune'], { OPENAI_API_KEY: 'sk-openai-example-0002' });
    assert.equal(pruned.code, 0, pruned.output);
    assert.match(pruned.output, /^- deployment local-llama \(dep_[^)]+\): delete$/m);
    assert.equal((await setup.sql`select 1 from deployments where config_name = 'local-llama'`).length, 0);
    assert.equal((await setup.sql`select 1 from deployments where id = 'dep_made_by_admin_api'`).length, 1);
  });

  it('prunes an extension the file made, never one the admin API made', async () => {
    const source = await documentedModule();
    const keyring = keyringFromJson(setup.env.ENCRYPTION_KEYRING, setup.env.ACTIVE_ENCRYPTION_KEY_ID);
    await setup.sql`insert into extensions (id, source_envelope, source_key_id, config, timeout_ms, memory_mb)
      values ('made-by-admin', ${keyring.seal('extension-artifact', source)}, ${keyring.activeId}, 'null', 50, 32)`;
    const without = example
      .replace(/^extensions:.*\n(?: {2}.*\n)+/m, '')
      .replace(/ {2}- name: local-llama\n(?: {4}.*\n)+/, '');
    assert.ok(!without.includes('block-words'));
    const path = await setup.write('without-extension.yaml', without);
    const pruned = await setup.run(['apply', path, '--prune'], { OPENAI_API_KEY: 'sk-openai-example-0002' });
    assert.equal(pruned.code, 0, pruned.output);
    assert.match(pruned.output, /^- extension block-words \(block-words\): delete$/m);
    assert.deepEqual(
      (await setup.sql`select id from extensions order by id`).map((row) => row.id),
      ['made-by-admin'],
    );
    // Back as the file has it, for the export below.
    const restored = await setup.run(['apply', file], { OPENAI_API_KEY: 'sk-openai-example-0002' });
    assert.equal(restored.code, 0, restored.output);
  });

  it('exports the configuration with secrets as references; applying the export changes nothing', async () => {
    await setup.sql`delete from deployments where id = 'dep_made_by_admin_api'`;
    const copy = join(setup.dir, 'exported.yaml');
    const exported = await setup.run(['export', '-o', copy]);
    assert.equal(exported.code, 0, exported.output);
    const text = await readFile(copy, 'utf8');
    assert.match(text, /apiKey: \$\{env:OPENAI_API_KEY\}/);
    assert.match(text, /apiKeyFile: secrets\/azure-openai.key/);
    assert.match(text, /secret: \$\{env:RESEARCH_NOTEBOOK_KEY\}/);
    assert.match(text, /sourceFile: extensions\/block-words.js/);
    assert.ok(!text.includes('sk-openai-example'), 'no secret value in an export');
    // The admin API's extension has no module file: the export wrote one beside itself.
    assert.match(text, /- name: made-by-admin\n {4}sourceFile: extensions\/made-by-admin.js/);
    assert.equal(
      await readFile(join(setup.dir, 'extensions/made-by-admin.js'), 'utf8'),
      await documentedModule(),
    );
    const first = await setup.run(['apply', copy], { OPENAI_API_KEY: 'sk-openai-example-0002' });
    assert.equal(first.code, 0, first.output);
    assert.match(
      first.output,
      /^~ extension made-by-admin \(made-by-admin\): update, taken over from the admin API$/m,
    );
    const before = await stamps(setup);
    const again = await setup.run(['apply', copy], { OPENAI_API_KEY: 'sk-openai-example-0002' });
    assert.equal(again.code, 0, again.output);
    assert.match(again.output, /nothing to change/);
    assert.deepEqual(await stamps(setup), before);
    const second = await setup.run(['export']);
    assert.equal(second.output, await readFile(copy, 'utf8'));
  });
});

describe('switchyard apply: a file it refuses', () => {
  let setup: CliSetup;
  before(async () => {
    setup = await cliSetup();
  });
  after(() => setup?.close());

  const deployment = (extra: string) =>
    `deployments:\n  - name: one\n    publicModel: gpt\n    provider: openai\n    upstreamModel: gpt-4o\n${extra}`;

  it('refuses a literal secret, naming file, line and field, without echoing it (exit 3)', async () => {
    const file = await setup.write('literal.yaml', deployment('    apiKey: sk-live-literal-secret-0001\n'));
    const { code, output } = await setup.run(['apply', file]);
    assert.equal(code, 3, output);
    assert.ok(output.includes(`${file}:6:13: deployments.0.apiKey: a literal secret is refused`), output);
    assert.ok(!output.includes('sk-live-literal-secret-0001'));
    assert.equal((await setup.sql`select 1 from deployments`).length, 0);
  });

  it('names an unset environment variable', async () => {
    const file = await setup.write('unset.yaml', deployment(`    apiKey: \${env:SY_TEST_UNSET_VARIABLE}\n`));
    const { code, output } = await setup.run(['apply', file]);
    assert.equal(code, 3, output);
    assert.match(
      output,
      /unset\.yaml:6:13: deployments\.0\.apiKey: the environment variable SY_TEST_UNSET_VARIABLE is not set/,
    );
  });

  it('names a field the admin API schema refuses, and one its rules refuse', async () => {
    const bad = await setup.write('weight.yaml', deployment('    weight: 0\n'));
    const weight = await setup.run(['apply', bad]);
    assert.equal(weight.code, 3, weight.output);
    assert.match(weight.output, /weight\.yaml:6:13: deployments\.0\.weight: weight must be greater than 0/);
    const compat = await setup.write(
      'compat.yaml',
      'deployments:\n  - name: c\n    publicModel: m\n    provider: openai-compatible\n    upstreamModel: x\n',
    );
    const rule = await setup.run(['apply', compat]);
    assert.equal(rule.code, 3, rule.output);
    assert.match(rule.output, /compat\.yaml:\d+:\d+: deployments\.0/);
    assert.equal((await setup.sql`select 1 from deployments`).length, 0, 'nothing written');
  });

  it('names an extension module it cannot read, and one that does not compile', async () => {
    const entry = (file: string) => `extensions:\n  - name: broken\n    sourceFile: ${file}\n`;
    const missing = await setup.run(['apply', await setup.write('missing.yaml', entry('nowhere.js'))]);
    assert.equal(missing.code, 3, missing.output);
    assert.match(
      missing.output,
      /missing\.yaml:3:17: extensions\.0\.sourceFile: cannot read nowhere\.js: ENOENT/,
    );
    await setup.write('broken.js', 'export function beforeUpstream( {');
    const broken = await setup.run(['apply', await setup.write('uncompiled.yaml', entry('broken.js'))]);
    assert.equal(broken.code, 3, broken.output);
    assert.match(broken.output, /uncompiled\.yaml:\d+:\d+: extensions\.0\.source: Extension source: /);
    assert.equal((await setup.sql`select 1 from extensions`).length, 0, 'nothing written');
  });

  it('refuses extensions in variant A, which loads them from EXTENSIONS_DIR only', async () => {
    await setup.write('fine.js', await documentedModule());
    const file = await setup.write(
      'variant-a.yaml',
      'extensions:\n  - name: fine\n    sourceFile: fine.js\n',
    );
    const { code, output } = await setup.run(['apply', file], { GATEWAY_VARIANT: 'a' });
    assert.equal(code, 3, output);
    assert.match(
      output,
      /variant-a\.yaml:\d+:\d+: extensions\.0: variant A loads extensions from EXTENSIONS_DIR only/,
    );
  });

  it('names a YAML syntax error by line', async () => {
    const file = await setup.write('broken.yaml', 'deployments:\n  - name: [unclosed\n');
    const { code, output } = await setup.run(['apply', file]);
    assert.equal(code, 3, output);
    assert.match(output, /broken\.yaml:\d+:\d+: /);
  });
});

describe('switchyard apply: two processes at once', () => {
  let setup: CliSetup;
  before(async () => {
    setup = await cliSetup();
  });
  after(() => setup?.close());

  it('applies the file once: one creates, the other finds nothing to change', async () => {
    const file = await setup.write('switchyard.yaml', await documentedExample());
    const runs = await Promise.all([setup.run(['apply', file]), setup.run(['apply', file])]);
    for (const run of runs) assert.equal(run.code, 0, run.output);
    assert.equal(
      runs.filter((run) => /nothing to change/.test(run.output)).length,
      1,
      runs.map((r) => r.output).join('\n---\n'),
    );
    assert.equal((await setup.sql`select 1 from deployments`).length, 4);
    assert.equal((await setup.sql`select 1 from virtual_keys`).length, 2);
  });

  // Broke under load: apply ran on the request path's view, whose whole step is bound by
  // DEPENDENCY_TIMEOUT_MS, and a loaded machine stopped it ("database did not answer within 1 ms").
  it('is bound per statement, not by the request path DEPENDENCY_TIMEOUT_MS', async () => {
    const example = await documentedExample();
    const file = await setup.write('changed.yaml', example.replace('    weight: 3\n', '    weight: 4\n'));
    const { code, output } = await setup.run(['apply', file], { DEPENDENCY_TIMEOUT_MS: '50' });
    assert.equal(code, 0, output);
    assert.match(output, /weight: (?:3 -> )?4$/m);
  });

  // Broke under CI's load: the first statement (the schema check) and the pool's connections were
  // still bound by DEPENDENCY_TIMEOUT_MS ("database did not answer within 1 ms").
  it('waits for a database slower to answer its first connection than DEPENDENCY_TIMEOUT_MS', async () => {
    const example = await documentedExample();
    const file = await setup.write('slower.yaml', example.replace('    weight: 3\n', '    weight: 5\n'));
    const target = new URL(setup.env.DATABASE_URL);
    const proxy = await startTcpProxy({
      targetHost: target.hostname,
      targetPort: Number(target.port || 5432),
      connectDelayMs: 300,
    });
    try {
      target.port = String(proxy.port);
      const { code, output } = await setup.run(['apply', file], {
        DATABASE_URL: target.toString(),
        DEPENDENCY_TIMEOUT_MS: '50',
      });
      assert.equal(code, 0, output);
      assert.match(output, /weight: (?:\d -> )?5$/m);
    } finally {
      await proxy.close();
    }
  });
});
