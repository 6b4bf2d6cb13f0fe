import assert from 'node:assert/strict';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { admin } from '../helpers/admin-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { connectSql } from '../helpers/sql.ts';
import { anthropicClient } from '../inference/support.ts';
import { adminRaw, chat, type ExtensionsRig, startRig } from './support.ts';

const EXAMPLES = new URL('../../examples/extensions/', import.meta.url);

/** The examples of examples/extensions/, loaded by a variant A gateway from EXTENSIONS_DIR. */
describe('examples/extensions through a variant A gateway (EXTENSIONS_DIR)', () => {
  let rig: ExtensionsRig;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sy-extensions-'));
    await cp(EXAMPLES, dir, { recursive: true });
    rig = await startRig({ env: { GATEWAY_VARIANT: 'a', EXTENSIONS_DIR: dir } });
  });
  after(async () => {
    await rig.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('loads one extension per module file, its settings from the sidecar, in id order', async () => {
    const list = await admin<{ data: { id: string; origin: string; critical: boolean; state: string }[] }>(
      rig.gw,
      'GET',
      '/extensions',
    );
    assert.deepEqual(
      list.data.map((extension) => [extension.id, extension.origin, extension.critical, extension.state]),
      [
        ['pii-redactor', 'directory', true, 'active'],
        ['request-tagger', 'directory', false, 'active'],
        ['topic-block', 'directory', true, 'active'],
      ],
    );
  });

  it('pii-redactor: e-mails, phone numbers and Luhn-valid card numbers never reach the upstream', async () => {
    const prompt =
      'Mail jane.doe@example.com or call +1 415 555 0134; card 4111 1111 1111 1111, order 1234 5678 9012 3456.';
    const answer = await chat(rig, prompt);
    assert.equal(answer.status, 200);
    const sent = rig.openai.lastRequest?.body as { messages: { content: string }[] };
    assert.equal(
      sent.messages[0].content,
      'Mail [EMAIL] or call [PHONE]; card [CARD], order 1234 5678 9012 3456.',
    );

    await anthropicClient(rig.gw, rig.key).messages.create({
      model: 'claude',
      max_tokens: 20,
      system: 'Reply to ops@example.org',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'my card is 4111-1111-1111-1111' }] }],
    });
    const claude = rig.anthropic.lastRequest?.body as { system: unknown; messages: { content: unknown }[] };
    assert.ok(JSON.stringify(claude.system).includes('Reply to [EMAIL]'), JSON.stringify(claude.system));
    assert.deepEqual(claude.messages[0].content, [{ type: 'text', text: 'my card is [CARD]' }]);
  });

  it('topic-block: a blocked topic is refused with the configured status, naming the topic', async () => {
    const upstreamCalls = rig.openai.requests.length;
    const refused = await chat(rig, 'Where is the nearest Casino?');
    assert.equal(refused.status, 403);
    const error = refused.body.error as { code: string; message: string };
    assert.equal(error.code, 'extension_rejected');
    assert.equal(error.message, 'Requests about gambling are not allowed here.');
    assert.equal(rig.openai.requests.length, upstreamCalls);
    const sql = connectSql(rig.gw.database?.url ?? '', 1);
    try {
      await eventually(async () => {
        const [row] = await sql<{
          error_code: string;
          extensions: { extensionId: string; outcome: string }[];
        }>`
          select error_code, extensions from request_logs where request_id = ${refused.headers.get('x-request-id')}`;
        assert.ok(row !== undefined, 'the request log row');
        assert.equal(row.error_code, 'extension_rejected');
        assert.deepEqual(row.extensions.at(-1), {
          ...row.extensions.at(-1),
          extensionId: 'topic-block',
          outcome: 'rejected',
        });
      });
    } finally {
      await sql.end();
    }
  });

  it('request-tagger: the upstream receives the configured tags in metadata', async () => {
    const answer = await chat(rig, 'hello', { metadata: { client: 'web' } });
    assert.equal(answer.status, 200);
    const sent = rig.openai.lastRequest?.body as { metadata: Record<string, string> };
    assert.equal(sent.metadata.client, 'web');
    assert.equal(sent.metadata.team, 'support');
    assert.equal(sent.metadata.gateway_operation, 'chat.completions');
    assert.match(sent.metadata.gateway_key, /^key_/);
  });

  it('reloads when a file of the directory changes', async () => {
    await writeFile(
      join(dir, 'z-shout.js'),
      'export function beforeUpstream(call) { return { reject: { status: 400, message: "shout" } }; }',
    );
    await writeFile(join(dir, 'z-shout.json'), JSON.stringify({ models: ['gpt'] }));
    await eventually(async () => assert.equal((await chat(rig, 'hi')).status, 400));
    await rm(join(dir, 'z-shout.js'));
    await eventually(async () => assert.equal((await chat(rig, 'hi')).status, 200));
  });

  it('variant A: the API does not write extensions, EXTENSIONS_DIR does', async () => {
    const created = await adminRaw(rig.gw, 'POST', '/extensions', {
      id: 'api-made',
      source: 'export function beforeUpstream() {}',
    });
    assert.equal(created.status, 409);
    assert.match((created.body.error as { message: string }).message, /EXTENSIONS_DIR/);
    const patched = await adminRaw(rig.gw, 'PATCH', '/extensions/pii-redactor', { enabled: false });
    assert.equal(patched.status, 409);
  });
});
