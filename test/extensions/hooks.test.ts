import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { admin } from '../helpers/admin-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { anthropicClient, openaiClient } from '../inference/support.ts';
import {
  adminRaw,
  answerText,
  chat,
  deleteExtension,
  type ExtensionsRig,
  recordedRuns,
  startRig,
} from './support.ts';

/** Time enough that a loaded test machine never cuts these hooks: they are not about limits. */
const ROOMY = { timeoutMs: 2_000 };

describe('extension hooks through the gateway', () => {
  let rig: ExtensionsRig;
  before(async () => {
    rig = await startRig();
  });
  after(() => rig.close());

  it('beforeUpstream { body } replaces the request body the upstream receives', async () => {
    await admin(rig.gw, 'POST', '/extensions', {
      limits: ROOMY,
      id: 'shout',
      models: ['gpt'],
      source: `export function beforeUpstream(call) {
        const messages = call.body.messages.map((m) => ({ ...m, content: String(m.content).toUpperCase() }));
        return { body: { ...call.body, messages } };
      }`,
    });
    try {
      const completion = await openaiClient(rig.gw, rig.key).chat.completions.create({
        model: 'gpt',
        messages: [{ role: 'user', content: 'hello there' }],
      });
      assert.equal(completion.choices[0].message.content, 'echo: HELLO THERE');
      const sent = rig.openai.lastRequest?.body as { messages: { content: string }[] };
      assert.equal(sent.messages[0].content, 'HELLO THERE');
    } finally {
      await deleteExtension(rig.gw, 'shout');
    }
  });

  it('rejects in the OpenAI shape with the status and message the extension chose', async () => {
    await admin(rig.gw, 'POST', '/extensions', {
      limits: ROOMY,
      id: 'no-secrets',
      source: `export function beforeUpstream(call) {
        if (JSON.stringify(call.body.messages ?? call.body.input).includes('classified')) {
          return { reject: { status: 422, message: 'Classified topics are blocked here.' } };
        }
      }`,
    });
    try {
      const refused = await chat(rig, 'tell me classified things');
      assert.equal(refused.status, 422);
      assert.deepEqual(refused.body, {
        error: {
          message: 'Classified topics are blocked here.',
          type: 'invalid_request_error',
          param: null,
          code: 'extension_rejected',
        },
      });
      const upstreamCalls = rig.openai.requests.length;
      const fine = await chat(rig, 'tell me public things');
      assert.equal(fine.status, 200);
      assert.equal(answerText(fine.body), 'echo: tell me public things');
      assert.equal(rig.openai.requests.length, upstreamCalls + 1);
    } finally {
      await deleteExtension(rig.gw, 'no-secrets');
    }
  });

  it('rejects in the Anthropic shape on /v1/messages', async () => {
    await admin(rig.gw, 'POST', '/extensions', {
      limits: ROOMY,
      id: 'no-secrets-claude',
      models: ['claude'],
      source: `export function beforeUpstream(call) {
        if (JSON.stringify(call.body.messages).includes('classified')) {
          return { reject: { status: 403, message: 'Classified topics are blocked here.' } };
        }
      }`,
    });
    try {
      const client = anthropicClient(rig.gw, rig.key);
      const error = await client.messages
        .create({ model: 'claude', max_tokens: 50, messages: [{ role: 'user', content: 'classified' }] })
        .then(
          () => null,
          (caught: unknown) => caught,
        );
      assert.ok(error instanceof Error && 'status' in error, 'the SDK raised an API error');
      const apiError = error as unknown as { status: number; error: unknown };
      assert.equal(apiError.status, 403);
      assert.deepEqual(apiError.error, {
        type: 'error',
        error: { type: 'permission_error', message: 'Classified topics are blocked here.' },
      });
      const fine = await client.messages.create({
        model: 'claude',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hello' }],
      });
      assert.equal(fine.type, 'message');
    } finally {
      await deleteExtension(rig.gw, 'no-secrets-claude');
    }
  });

  it('afterUpstream { response } replaces the JSON answer', async () => {
    await admin(rig.gw, 'POST', '/extensions', {
      limits: ROOMY,
      id: 'signature',
      models: ['gpt'],
      config: { suffix: ' [checked]' },
      source: `export function afterUpstream(call) {
        const response = call.response;
        response.choices[0].message.content += call.config.suffix;
        return { response };
      }`,
    });
    try {
      const answer = await chat(rig, 'hi');
      assert.equal(answer.status, 200);
      assert.equal(answerText(answer.body), 'echo: hi [checked]');
    } finally {
      await deleteExtension(rig.gw, 'signature');
    }
  });

  it('afterUpstream on a stream runs once at the end with the assembled answer, and only observes', async () => {
    await admin(rig.gw, 'POST', '/extensions', {
      limits: ROOMY,
      id: 'stream-watch',
      models: ['gpt'],
      source: `export function afterUpstream(call) {
        const text = call.response.choices[0].message.content;
        if (text !== 'echo: stream me') throw new Error('not the assembled answer');
        return { response: { replaced: true } };
      }`,
    });
    try {
      const { data: stream, response } = await openaiClient(rig.gw, rig.key)
        .chat.completions.create({
          model: 'gpt',
          stream: true,
          messages: [{ role: 'user', content: 'stream me' }],
        })
        .withResponse();
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      assert.equal(text, 'echo: stream me', 'the client got the upstream answer, untouched');
      const requestId = response.headers.get('x-request-id') ?? '';
      const runs = await recordedRuns(rig.gw, requestId);
      assert.deepEqual(
        runs.map((run) => [run.extensionId, run.hook, run.outcome]),
        [['stream-watch', 'afterUpstream', 'observed']],
      );
    } finally {
      await deleteExtension(rig.gw, 'stream-watch');
    }
  });

  it('audits its admin mutations like every other admin resource', async () => {
    await admin(rig.gw, 'POST', '/extensions', {
      id: 'audited',
      source: 'export function beforeUpstream() {}',
    });
    await adminRaw(rig.gw, 'POST', '/extensions/audited/reset');
    await deleteExtension(rig.gw, 'audited');
    await eventually(async () => {
      const page = await admin<{ data: { method: string; path: string; status: number }[] }>(
        rig.gw,
        'GET',
        '/audit?resourceId=audited',
      );
      assert.deepEqual(page.data.map((row) => `${row.method} ${row.path} ${row.status}`).sort(), [
        'DELETE /admin/extensions/audited 200',
        'POST /admin/extensions 201',
        'POST /admin/extensions/audited/reset 200',
      ]);
    });
  });

  it('refuses a source that does not compile or exports no hook, naming the problem', async () => {
    const broken = await adminRaw(rig.gw, 'POST', '/extensions', {
      id: 'broken',
      source: 'export function beforeUpstream( {',
    });
    assert.equal(broken.status, 400);
    const error = broken.body.error as { param: string; message: string };
    assert.equal(error.param, 'source');
    assert.match(error.message, /does not compile/);
    const hookless = await adminRaw(rig.gw, 'POST', '/extensions', {
      id: 'hookless',
      source: 'export const x = 1;',
    });
    assert.equal(hookless.status, 400);
    assert.match(
      (hookless.body.error as { message: string }).message,
      /exports neither beforeUpstream nor afterUpstream/,
    );
    const importing = await adminRaw(rig.gw, 'POST', '/extensions', {
      id: 'importing',
      source: 'import fs from "node:fs"; export function beforeUpstream() {}',
    });
    assert.equal(importing.status, 400);
    const list = await admin<{ data: { id: string }[] }>(rig.gw, 'GET', '/extensions');
    assert.deepEqual(list.data, []);
  });
});
