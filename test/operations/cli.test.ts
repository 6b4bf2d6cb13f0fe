import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { runMain } from '../helpers/child.ts';
import { createTestDatabase, TEST_REDIS_URL } from '../helpers/database.ts';
import { testSecrets } from '../helpers/secrets.ts';
import { type CliSetup, cliSetup } from './support.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VERSION = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string }).version;

const COMMANDS = [
  [],
  ['serve'],
  ['migrate'],
  ['apply'],
  ['export'],
  ['encryption:rotate'],
  ['keys'],
  ['keys', 'create'],
  ['keys', 'list'],
  ['keys', 'disable'],
  ['keys', 'rotate'],
  ['teams'],
  ['teams', 'list'],
  ['doctor'],
];

describe('switchyard: help, version and exit statuses', () => {
  it('answers --help on every command with its usage, exit 0, touching no database', async () => {
    // No DATABASE_URL and a DATA_DIR that cannot be made: help must not open anything.
    const env = { DATA_DIR: '/proc/no-such-dir' };
    const runs = await Promise.all(COMMANDS.map((command) => runMain([...command, '--help'], env)));
    runs.forEach((run, i) => {
      const name = ['switchyard', ...COMMANDS[i]].join(' ');
      assert.equal(run.code, 0, `${name} --help: ${run.output}`);
      assert.match(run.output, new RegExp(`^Usage: ${name}\\b`, 'm'), name);
    });
  });

  it('prints the package version', async () => {
    const { code, output } = await runMain(['--version'], {});
    assert.equal(code, 0);
    assert.equal(output.trim(), VERSION);
  });

  it('exits 2 on a usage error, naming it', async () => {
    const unknown = await runMain(['frobnicate'], {});
    assert.equal(unknown.code, 2, unknown.output);
    assert.match(unknown.output, /unknown command 'frobnicate'/);
    const option = await runMain(['migrate', '--no-such-option'], {});
    assert.equal(option.code, 2, option.output);
    const missing = await runMain(['apply'], {});
    assert.equal(missing.code, 2, missing.output);
    assert.match(missing.output, /missing required argument 'file'/);
    const number = await runMain(['keys', 'create', '--name', 'x', '--rpm-limit', 'lots'], {});
    assert.equal(number.code, 2, number.output);
  });

  it('exits 1 with one line on a bad setting', async () => {
    const { code, output } = await runMain(['migrate'], { GATEWAY_VARIANT: 'c' });
    assert.equal(code, 1);
    assert.equal(output.trim(), 'switchyard: GATEWAY_VARIANT must be a or b (got "c")');
  });

  it('the bin entry tells an old Node.js what to do instead of failing on the sources', (t) => {
    let version = '';
    try {
      version = execFileSync('/usr/bin/node', ['--version'], { encoding: 'utf8' }).trim();
    } catch {
      return t.skip('no /usr/bin/node on this machine to play the old Node.js');
    }
    if (Number(version.slice(1).split('.')[0]) >= 24)
      return t.skip(`/usr/bin/node is ${version}, not an old one`);
    try {
      execFileSync('/usr/bin/node', [`${ROOT}bin/switchyard.js`, '--version'], {
        encoding: 'utf8',
        stdio: 'pipe',
      });
      assert.fail('expected exit 1');
    } catch (error) {
      const failed = error as { status: number; stderr: string };
      assert.equal(failed.status, 1);
      assert.match(failed.stderr, /needs Node\.js 24 or later, and this is v\d+/);
      assert.match(failed.stderr, /npm install/);
    }
  });
});

describe('switchyard keys and teams', () => {
  let setup: CliSetup;
  before(async () => {
    setup = await cliSetup();
  });
  after(() => setup?.close());

  it('creates, lists, disables and rotates a key with the admin API rules', async () => {
    const teamFile = await setup.write('team.yaml', 'teams:\n  - name: platform\n    allowedModels: [gpt]\n');
    assert.equal((await setup.run(['apply', teamFile])).code, 0);
    const teams = await setup.run(['teams', 'list', '--json']);
    assert.equal(teams.code, 0, teams.output);
    const team = JSON.parse(teams.output.trim()) as { id: string; name: string };
    assert.equal(team.name, 'platform');

    const created = await setup.run([
      'keys',
      'create',
      '--name',
      'ci',
      '--models',
      'gpt',
      '--team',
      team.id,
      '--rpm-limit',
      '10',
      '--json',
    ]);
    assert.equal(created.code, 0, created.output);
    const key = JSON.parse(created.output.trim()) as {
      id: string;
      key: string;
      teamId: string;
      rpmLimit: number;
    };
    assert.match(key.key, /^sk-sy-/);
    assert.equal(key.teamId, team.id);
    assert.equal(key.rpmLimit, 10);

    const listed = await setup.run(['keys', 'list']);
    assert.equal(listed.code, 0);
    assert.match(listed.output, new RegExp(`^${key.id}\\s+ci\\s+true\\s+${team.id}\\s+gpt$`, 'm'));
    assert.ok(!listed.output.includes(key.key), 'a list never shows a secret');

    assert.equal((await setup.run(['keys', 'disable', key.id])).code, 0);
    const [row] = await setup.sql`select enabled from virtual_keys where id = ${key.id}`;
    assert.equal(row.enabled, false);

    const rotated = await setup.run(['keys', 'rotate', key.id, '--json']);
    assert.equal(rotated.code, 0, rotated.output);
    const fresh = JSON.parse(rotated.output.trim()) as { key: string };
    assert.match(fresh.key, /^sk-sy-/);
    assert.notEqual(fresh.key, key.key);
  });

  it('exits 1 naming an unknown key, and 2 on a team id the schema refuses', async () => {
    const missing = await setup.run(['keys', 'disable', 'key_nope']);
    assert.equal(missing.code, 1);
    assert.match(missing.output, /no virtual key with id "key_nope"/);
    const bad = await setup.run(['keys', 'create', '--name', 'x', '--team', '']);
    assert.equal(bad.code, 2, bad.output);
    assert.match(bad.output, /teamId/);
  });
});

describe('switchyard doctor', () => {
  let setup: CliSetup;
  let fake: OpenAIFake;
  before(async () => {
    setup = await cliSetup();
    fake = await new OpenAIFake({ apiKey: 'sk-doctor-0001' }).start();
  });
  after(async () => {
    await setup?.close();
    await fake?.close();
  });

  it('passes a healthy setup, probing each deployment', async () => {
    await setup.sql`insert into deployments (id, public_model, provider, upstream_model, base_url, provider_options)
      values ('dep_doctor_ok', 'gpt', 'openai', 'gpt-4o', ${fake.baseUrl}, '{}')`;
    const { code, output } = await setup.run(['doctor', '--probe'], { REDIS_URL: TEST_REDIS_URL });
    assert.equal(code, 0, output);
    for (const check of [
      'configuration',
      'keyring',
      'cache store',
      'database',
      'migrations',
      'credentials',
    ]) {
      assert.match(output, new RegExp(`^ok {3}${check}: `, 'm'), check);
    }
    assert.match(output, /^ok {3}probe gpt \(dep_doctor_ok\): http:\/\/127\.0\.0\.1:\d+ answered HTTP \d+$/m);
    assert.match(output, /all checks passed/);
  });

  it('says what is wrong and what to do on a broken setup (exit 1)', async () => {
    await setup.sql`insert into deployments (id, public_model, provider, upstream_model, base_url, provider_options)
      values ('dep_doctor_gone', 'gone', 'openai-compatible', 'x', 'http://127.0.0.1:9/v1', '{}')`;
    const probe = await setup.run(['doctor', '--probe'], { REDIS_URL: 'redis://127.0.0.1:9' });
    assert.equal(probe.code, 1, probe.output);
    assert.match(probe.output, /^FAIL cache store: Redis cannot be used: .*\n {6}-> check REDIS_URL/m);
    assert.match(probe.output, /^FAIL probe gone \(dep_doctor_gone\): http:\/\/127\.0\.0\.1:9 unreachable/m);

    const behind = await createTestDatabase();
    try {
      const url = behind.url;
      const schema = await runMain(['doctor'], { ...testSecrets(), DATABASE_URL: url });
      assert.equal(schema.code, 1, schema.output);
      assert.match(
        schema.output,
        /^FAIL migrations: schema at version 0, this release needs \d+\n {6}-> run `npx switchyard migrate`/m,
      );
    } finally {
      await behind.drop();
    }
    const noDatabase = await runMain(['doctor'], {
      ...testSecrets(),
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/sy_no_such_database',
    });
    assert.equal(noDatabase.code, 1);
    assert.match(
      noDatabase.output,
      /^FAIL database: cannot query DATABASE_URL: .*\n {6}-> check DATABASE_URL/m,
    );
    assert.ok(!noDatabase.output.includes(setup.env.MASTER_KEY), 'no secret in its report');
  });

  it('reports a bad setting as a failed check', async () => {
    const { code, output } = await runMain(['doctor'], { MASTER_KEY: 'short' });
    assert.equal(code, 1);
    assert.match(output, /^FAIL configuration: MASTER_KEY must be at least 32 characters/m);
  });
});
