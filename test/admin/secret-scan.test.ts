import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CredentialEchoFake, type EchoShape } from '../fakes/credential-echo-fake.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { assertAbsent, assertNowhere, everyStoredValue, pieces } from './secret-scan-support.ts';
import { AdminClient, chat, eventually, sqlFor } from './support.ts';

/**
 * DESIGN.md section 5: a deployment's apiKey is write-only. Drives every admin path that takes a
 * key (create, PATCH, resolve, rejected bodies), inference calls that succeed and fail, then
 * looks for the key, and for any 12-character piece of its random part, in every admin answer,
 * every log line and every text, JSON, array and bytea column of every table.
 */
for (const variant of ['b', 'a'] as const) {
  describe(`a provider key is stored and shown nowhere in plaintext (variant ${variant})`, () => {
    const core = randomBytes(24).toString('hex');
    const providerKey = `sk-proj-${core}`;
    const replacement = `sk-proj-${randomBytes(24).toString('hex')}`;
    let fake: OpenAIFake;
    let gw: TestGateway;
    let admin: AdminClient;

    before(async () => {
      fake = await new OpenAIFake({ apiKey: providerKey }).start();
      gw = await startTestGateway({ env: { GATEWAY_VARIANT: variant, LOG_LEVEL: 'trace' } });
      admin = new AdminClient(gw);
    });
    after(async () => {
      await gw.close();
      await fake.close();
    });

    it('drives every path that carries the key, then scans answers, logs and the database', async () => {
      const body = {
        publicModel: 'scanned',
        provider: 'openai',
        upstreamModel: 'gpt-4o-mini',
        apiKey: providerKey,
        baseUrl: fake.baseUrl,
      };
      const created = await admin.post('/admin/deployments', body);
      assert.equal(created.status, 201);
      const id = String(created.body.id);
      assert.equal((await admin.post('/admin/deployments', { ...body, weight: 0 })).status, 400);
      assert.equal((await admin.post('/admin/deployments', { ...body, provider: 'nope' })).status, 400);
      assert.equal((await admin.post('/admin/deployments', { ...body, extra: true })).status, 400);
      assert.equal(
        (await admin.post('/admin/deployments', { ...body, apiKey: 'x'.repeat(9000) })).status,
        400,
      );
      assert.equal((await admin.post('/admin/deployments/resolve', body)).status, 200);
      assert.equal(
        (await admin.patch(`/admin/deployments/${id}`, { apiKey: providerKey, rpmLimit: 0 })).status,
        400,
      );
      assert.equal((await admin.patch(`/admin/deployments/${id}`, { apiKey: providerKey })).status, 200);
      assert.equal((await admin.get('/admin/deployments')).status, 200);
      assert.equal((await admin.get(`/admin/deployments/${id}`)).status, 200);

      assert.equal((await chat(gw, gw.masterKey, 'scanned')).status, 200);
      assert.equal(fake.lastRequest?.headers.authorization, `Bearer ${providerKey}`, 'the upstream got it');
      // A rejected key: the failure is logged with its private detail.
      await admin.patch(`/admin/deployments/${id}`, { apiKey: replacement });
      assert.equal((await chat(gw, gw.masterKey, 'scanned')).status, 502);
      await admin.patch(`/admin/deployments/${id}`, { apiKey: providerKey });
      assert.equal((await chat(gw, gw.masterKey, 'scanned')).status, 200);
      await gw.gateway.shutdown(); // flushes queued records, so the tables hold everything

      const needles = [providerKey, replacement, ...pieces(core)];
      await assertNowhere(gw, admin.answers, needles, 'scanned');
    });
  });
}

/**
 * Issue 19 item 3: an upstream that echoes the credential it was sent in its error answer. The
 * key must not reach the log, any stored value (`upstream_attempts.error_detail` above all) or
 * `GET /admin/logs`. The keys are of every kind: shaped like the provider's (sk-ant-, AIza) and
 * shaped like nothing (only the literal match of the deployment's own credential can find those).
 */
for (const variant of ['b', 'a'] as const) {
  describe(`an upstream echoing its key in an error body leaks it nowhere (variant ${variant})`, () => {
    const hex = () => randomBytes(20).toString('hex');
    const upstreams: Array<{
      model: string;
      provider: string;
      shape: EchoShape;
      text?: boolean;
      core: string;
      key: (core: string) => string;
    }> = [
      { model: 'echo-openai', provider: 'openai', shape: 'openai', core: hex(), key: (core) => `op${core}` },
      {
        model: 'echo-compat',
        provider: 'openai-compatible',
        shape: 'openai',
        text: true,
        core: hex(),
        key: (core) => `tx${core}`,
      },
      {
        model: 'echo-anthropic',
        provider: 'anthropic',
        shape: 'anthropic',
        core: hex(),
        key: (core) => `sk-ant-api03-${core}`,
      },
      {
        model: 'echo-anthropic-plain',
        provider: 'anthropic',
        shape: 'anthropic',
        core: hex(),
        key: (core) => `an${core}`,
      },
      {
        model: 'echo-gemini',
        provider: 'gemini',
        shape: 'gemini',
        core: hex().slice(0, 35),
        key: (core) => `AIza${core}`,
      },
      {
        model: 'echo-gemini-plain',
        provider: 'gemini',
        shape: 'gemini',
        core: hex(),
        key: (core) => `gm${core}`,
      },
    ];
    const fakes: CredentialEchoFake[] = [];
    let gw: TestGateway;
    let admin: AdminClient;

    before(async () => {
      gw = await startTestGateway({ env: { GATEWAY_VARIANT: variant, LOG_LEVEL: 'trace' } });
      admin = new AdminClient(gw);
      for (const upstream of upstreams) {
        const fake = await new CredentialEchoFake(upstream.shape, { text: upstream.text }).start();
        fakes.push(fake);
        const created = await admin.post('/admin/deployments', {
          publicModel: upstream.model,
          provider: upstream.provider,
          upstreamModel: upstream.provider === 'gemini' ? 'gemini-2.5-flash' : 'some-model',
          apiKey: upstream.key(upstream.core),
          baseUrl: fake.baseUrl,
        });
        assert.equal(created.status, 201, created.raw);
      }
    });
    after(async () => {
      await gw.close();
      for (const fake of fakes) await fake.close();
    });

    it('scrubs the echoed key from the log, the records and /admin/logs, and keeps the rest', async () => {
      for (const upstream of upstreams) {
        const answer = await chat(gw, gw.masterKey, upstream.model);
        assert.ok(answer.status >= 400, `${upstream.model} fails: ${answer.raw}`);
        assert.ok(
          fakes.some((fake) => fake.requests.length > 0),
          'the echo fake was called',
        );
      }
      for (const [index, fake] of fakes.entries()) {
        const headers = JSON.stringify(fake.lastRequest?.headers ?? {});
        assert.ok(headers.includes(upstreams[index].core), `${upstreams[index].model} got its key`);
      }
      const needles = upstreams.flatMap(({ key, core }) => [key(core), ...pieces(core)]);
      if (variant === 'b') {
        // The records are written after the answers: wait until /admin/logs holds every call.
        await eventually(async () => {
          const page = await admin.get<{ data: Array<{ publicModel: string; attempts: unknown[] }> }>(
            '/admin/logs?limit=100',
          );
          const echoed = page.body.data.filter(({ publicModel }) => publicModel.startsWith('echo-'));
          assert.equal(echoed.length, upstreams.length);
          assert.ok(page.raw.includes('[redacted]'), 'the attempts show their scrubbed detail');
        });
      }
      for (const answer of admin.answers) assertAbsent(answer, needles, 'an admin answer');
      await gw.gateway.shutdown(); // flushes queued records, so the tables hold everything
      assert.ok(
        gw.logs.some((line) => line.includes('call failed')),
        'the failures were logged',
      );
      assertAbsent(gw.logs.join('\n'), needles, 'the logs');
      const sql = sqlFor(gw.database?.url ?? '');
      try {
        const values = await everyStoredValue(sql);
        const details = values.filter(({ where }) => where.endsWith('error_detail'));
        assert.ok(
          details.some(({ text }) => text.includes('[redacted]') && text.includes('Incorrect API key')),
          'the detail is kept, the key in it redacted',
        );
        for (const { where, text } of values) assertAbsent(text, needles, where);
      } finally {
        await sql.end();
      }
    });
  });
}
