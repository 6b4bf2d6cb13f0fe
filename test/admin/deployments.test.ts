import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { sharedEnv } from '../helpers/shared-env.ts';
import { sqlOn } from '../helpers/sql.ts';
import { AdminClient, chat, EMBEDDED, errorOf, eventually } from './support.ts';

type Json = Record<string, unknown>;

const UPSTREAM_KEY = 'sk-upstream-deployments-test-0001';

for (const storage of ['postgres', 'embedded'] as const) {
  describe(`/admin/deployments (${storage})`, () => {
    let gw: TestGateway;
    let admin: AdminClient;
    let fake: OpenAIFake;
    const create = (fields: Json = {}) =>
      admin.post('/admin/deployments', {
        publicModel: 'chat-model',
        provider: 'openai',
        upstreamModel: 'gpt-4o-mini',
        apiKey: UPSTREAM_KEY,
        baseUrl: fake.baseUrl,
        ...fields,
      });

    before(async () => {
      fake = await new OpenAIFake({ apiKey: UPSTREAM_KEY }).start();
      gw = await startTestGateway(storage === 'embedded' ? EMBEDDED : {});
      admin = new AdminClient(gw);
    });
    after(async () => {
      await gw.close();
      await fake.close();
    });

    it('creates a deployment with a server-made id and the documented defaults', async () => {
      const res = await create({ publicModel: 'defaults' });
      assert.equal(res.status, 201);
      const body = res.body;
      assert.match(String(body.id), /^dep_[a-z0-9]+$/);
      assert.equal(body.hasApiKey, true);
      assert.equal(body.enabled, true);
      assert.equal(body.weight, 1);
      assert.equal(body.rpmLimit, null);
      assert.equal(body.pricing, null);
      assert.equal(body.profile, null);
      assert.deepEqual(body.providerOptions, {});
      assert.ok(!('apiKey' in body), 'the key is write-only');
      assert.ok(!res.raw.includes(UPSTREAM_KEY));
      const read = await admin.get(`/admin/deployments/${body.id}`);
      assert.deepEqual(read.body, body);
    });

    it('stores every field of DESIGN.md section 5', async () => {
      const fields = {
        publicModel: 'full',
        enabled: false,
        weight: 2.5,
        rpmLimit: 60,
        tpmLimit: 100_000,
        pricing: { inputCentsPerMTok: 15, outputCentsPerMTok: 60, cachedInputCentsPerMTok: 7.5 },
        profile: {
          operations: {
            'chat.completions': { transports: ['json', 'sse'], params: { temperature: { min: 0, max: 1 } } },
            'images.generations': { params: { size: ['1024x1024'], n: [1] } },
          },
        },
        providerOptions: { organization: 'org-1' },
      };
      const res = await create(fields);
      assert.equal(res.status, 201);
      for (const [name, value] of Object.entries(fields)) assert.deepEqual(res.body[name], value, name);
    });

    it('answers 400 naming the field', async () => {
      const cases: Array<[Json, string]> = [
        [{ publicModel: undefined }, 'publicModel'],
        [{ publicModel: '  ' }, 'publicModel'],
        [{ upstreamModel: 7 }, 'upstreamModel'],
        [{ weight: 0 }, 'weight'],
        [{ rpmLimit: 2 ** 31 }, 'rpmLimit'],
        [{ rpmLimit: 1.5 }, 'rpmLimit'],
        [{ tpmLimit: -1 }, 'tpmLimit'],
        [{ enabled: 'yes' }, 'enabled'],
        [{ baseUrl: 'ftp://example.com' }, 'baseUrl'],
        [{ apiKey: '' }, 'apiKey'],
        [{ surprise: true }, 'surprise'],
        [{ provider: 'no-such-provider' }, 'provider'],
        [{ provider: 'azure', baseUrl: null }, 'baseUrl'],
        [{ provider: 'openai-compatible', baseUrl: undefined }, 'baseUrl'],
        [{ pricing: { inputCentsPerMTok: 1 } }, 'pricing.outputCentsPerMTok'],
        [{ pricing: { inputCentsPerMTok: -1, outputCentsPerMTok: 1 } }, 'pricing.inputCentsPerMTok'],
        [{ pricing: { inputCentsPerMTok: 1, outputCentsPerMTok: 1, extra: 1 } }, 'pricing.extra'],
        [{ profile: { operations: {} } }, 'profile.operations'],
        [{ profile: { operations: { 'chat.nope': {} } } }, 'profile.operations.chat.nope'],
        [
          { provider: 'openai-compatible', profile: { operations: { 'images.edits': {} } } },
          'profile.operations.images.edits',
        ],
        [
          { profile: { operations: { embeddings: { transports: ['sse'] } } } },
          'profile.operations.embeddings.transports.0',
        ],
        [
          { profile: { operations: { 'chat.completions': { transports: ['json', 'multipart'] } } } },
          'profile.operations.chat.completions.transports.1',
        ],
        [
          {
            profile: { operations: { 'chat.completions': { params: { temperature: { min: 2, max: 1 } } } } },
          },
          'profile.operations.chat.completions.params.temperature',
        ],
        [
          { profile: { operations: { 'images.generations': { params: { size: [] } } } } },
          'profile.operations.images.generations.params.size',
        ],
      ];
      for (const [fields, param] of cases) {
        const res = await create(fields);
        assert.equal(res.status, 400, `${JSON.stringify(fields)} -> ${res.raw}`);
        assert.equal(errorOf(res).code, 'invalid_request');
        assert.equal(errorOf(res).param, param, JSON.stringify(fields));
      }
    });

    it('refuses a bad provider option at save time for every provider, naming it', async () => {
      const base = { apiKey: UPSTREAM_KEY, baseUrl: fake.baseUrl };
      const cases: Array<[Json, string]> = [
        [{ provider: 'openai', providerOptions: { organization: 7 } }, 'providerOptions.organization'],
        [{ provider: 'openai', providerOptions: { organisation: 'org-1' } }, 'providerOptions.organisation'],
        [{ provider: 'azure', providerOptions: { apiVersion: '' } }, 'providerOptions.apiVersion'],
        [{ provider: 'openai-compatible', providerOptions: { region: 'x' } }, 'providerOptions.region'],
        [{ provider: 'anthropic', providerOptions: { betas: ['ok', ''] } }, 'providerOptions.betas.1'],
        [{ provider: 'gemini', providerOptions: { apiVersion: 'v1' } }, 'providerOptions.apiVersion'],
        [{ provider: 'bedrock', providerOptions: {} }, 'providerOptions.region'],
        [{ provider: 'bedrock', providerOptions: { region: 'us-east-1/evil' } }, 'providerOptions.region'],
        [
          { provider: 'bedrock', providerOptions: { region: 'us-east-1', roleArn: 'role/x' } },
          'providerOptions.roleArn',
        ],
        [
          { provider: 'bedrock', providerOptions: { region: 'us-east-1', externalId: 'ext-1' } },
          'providerOptions.externalId',
        ],
      ];
      const count = await deploymentCount(gw);
      for (const [fields, param] of cases) {
        for (const res of [
          await create({ ...base, ...fields }),
          await admin.post('/admin/deployments/resolve', {
            publicModel: 'r',
            upstreamModel: 'm',
            ...base,
            ...fields,
          }),
        ]) {
          assert.equal(res.status, 400, `${JSON.stringify(fields)} -> ${res.raw}`);
          assert.equal(errorOf(res).code, 'invalid_request');
          assert.equal(errorOf(res).param, param, JSON.stringify(fields));
        }
      }
      assert.equal(await deploymentCount(gw), count, 'nothing saved');
    });

    it('betas "not-a-list": refused when saved, not 201 and then 500 on every call', async () => {
      const created = await create({ provider: 'anthropic', providerOptions: { betas: 'not-a-list' } });
      assert.equal(created.status, 400, created.raw);
      assert.equal(errorOf(created).param, 'providerOptions.betas');
      const id = String((await create({ publicModel: 'betas', provider: 'anthropic' })).body.id);
      const patched = await admin.patch(`/admin/deployments/${id}`, {
        providerOptions: { betas: 'not-a-list' },
      });
      assert.equal(patched.status, 400, patched.raw);
      assert.equal(errorOf(patched).param, 'providerOptions.betas');
      assert.deepEqual(
        (await admin.get(`/admin/deployments/${id}`)).body.providerOptions,
        {},
        'nothing saved',
      );
      const switched = await admin.patch(`/admin/deployments/${id}`, { provider: 'openai' });
      assert.equal(switched.status, 200, 'no options: any provider takes them');
      const kept = await admin.patch(`/admin/deployments/${id}`, {
        provider: 'anthropic',
        providerOptions: { betas: ['context-1m-2025-08-07'] },
      });
      assert.equal(kept.status, 200, kept.raw);
      const moved = await admin.patch(`/admin/deployments/${id}`, { provider: 'openai' });
      assert.equal(
        errorOf(moved).param,
        'providerOptions.betas',
        'the kept options are checked against the new provider',
      );
    });

    it('resolve names the credential source a deployment will use', async () => {
      const source = async (fields: Json) => {
        const res = await admin.post('/admin/deployments/resolve', {
          publicModel: 'r',
          upstreamModel: 'm',
          ...fields,
        });
        assert.equal(res.status, 200, res.raw);
        return res.body.credentialSource;
      };
      const region = { region: 'us-east-1' };
      const roleArn = 'arn:aws:iam::123456789012:role/gateway';
      assert.equal(await source({ provider: 'openai', apiKey: UPSTREAM_KEY }), 'static-key');
      assert.equal(await source({ provider: 'openai-compatible', baseUrl: fake.baseUrl }), 'none');
      assert.equal(
        await source({ provider: 'azure', baseUrl: fake.baseUrl, apiKey: UPSTREAM_KEY }),
        'azure-api-key',
      );
      assert.equal(
        await source({ provider: 'bedrock', apiKey: 'AKID:SECRET', providerOptions: region }),
        'static-key',
      );
      assert.equal(await source({ provider: 'bedrock', providerOptions: region }), 'aws-default-chain');
      assert.equal(
        await source({ provider: 'bedrock', providerOptions: { ...region, roleArn, externalId: 'ext-1' } }),
        'aws-assume-role',
      );
    });

    it('pages through the list with limit and cursor, in creation order', async () => {
      const created: string[] = [];
      for (let i = 0; i < 5; i++) created.push(String((await create({ publicModel: `page-${i}` })).body.id));
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${cursor}`;
        const res = await admin.get<{ data: Json[]; nextCursor: string | null }>(
          `/admin/deployments${query}`,
        );
        assert.equal(res.status, 200);
        assert.ok(res.body.data.length <= 2);
        seen.push(...res.body.data.map((d) => String(d.id)));
        cursor = res.body.nextCursor;
        pages++;
      } while (cursor !== null && pages < 100);
      assert.deepEqual(
        seen.filter((id) => created.includes(id)),
        created,
      );
      assert.equal(new Set(seen).size, seen.length, 'no item twice');
    });

    it('refuses a bad limit or cursor with 400 naming it', async () => {
      assert.equal(errorOf(await admin.get('/admin/deployments?limit=0')).param, 'limit');
      assert.equal(errorOf(await admin.get('/admin/deployments?limit=abc')).param, 'limit');
      assert.equal(errorOf(await admin.get('/admin/deployments?cursor=%%%')).param, 'cursor');
    });

    it('answers 404 for an unknown id', async () => {
      for (const res of [
        await admin.get('/admin/deployments/dep_nope'),
        await admin.patch('/admin/deployments/dep_nope', { weight: 2 }),
        await admin.delete('/admin/deployments/dep_nope'),
      ]) {
        assert.equal(res.status, 404);
        assert.equal(errorOf(res).code, 'not_found');
      }
    });

    it('PATCH: absent fields stay, null clears, apiKey replaces the sealed credential', async () => {
      const id = String((await create({ publicModel: 'patched', rpmLimit: 10, pricing: null })).body.id);
      const before = await envelopeOf(gw, id);
      const res = await admin.patch(`/admin/deployments/${id}`, {
        rpmLimit: null,
        weight: 3,
        pricing: { inputCentsPerMTok: 1, outputCentsPerMTok: 2 },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.rpmLimit, null);
      assert.equal(res.body.weight, 3);
      assert.equal(res.body.upstreamModel, 'gpt-4o-mini', 'absent = unchanged');
      assert.equal(await envelopeOf(gw, id), before, 'no apiKey: the credential is untouched');

      const replaced = await admin.patch(`/admin/deployments/${id}`, { apiKey: 'sk-another-key-0002' });
      assert.equal(replaced.body.hasApiKey, true);
      assert.notEqual(await envelopeOf(gw, id), before);

      const cleared = await admin.patch(`/admin/deployments/${id}`, { apiKey: null, pricing: null });
      assert.equal(cleared.body.hasApiKey, false);
      assert.equal(cleared.body.pricing, null);
      assert.equal(await envelopeOf(gw, id), null);
    });

    it('PATCH validates the deployment it would yield', async () => {
      const id = String((await create({ publicModel: 'switch', baseUrl: null })).body.id);
      const res = await admin.patch(`/admin/deployments/${id}`, { provider: 'azure' });
      assert.equal(res.status, 400);
      assert.equal(errorOf(res).param, 'baseUrl');
      assert.equal((await admin.get(`/admin/deployments/${id}`)).body.provider, 'openai', 'nothing saved');
      assert.equal(errorOf(await admin.patch(`/admin/deployments/${id}`, { weight: -2 })).param, 'weight');
    });

    it('a change is visible to the very next inference call on the same replica', async () => {
      const res = await create({ publicModel: 'live' });
      const id = String(res.body.id);
      assert.equal((await chat(gw, gw.masterKey, 'live')).status, 200);
      assert.equal(fake.lastRequest?.headers.authorization, `Bearer ${UPSTREAM_KEY}`);

      await admin.patch(`/admin/deployments/${id}`, { enabled: false });
      assert.equal(errorOf(await chat(gw, gw.masterKey, 'live')).code, 'model_not_found');
      await admin.patch(`/admin/deployments/${id}`, { enabled: true });
      assert.equal((await chat(gw, gw.masterKey, 'live')).status, 200);
      await admin.patch(`/admin/deployments/${id}`, { apiKey: 'sk-wrong-key' });
      assert.equal((await chat(gw, gw.masterKey, 'live')).status, 502, 'the new key is used at once');
      await admin.delete(`/admin/deployments/${id}`);
      assert.equal(errorOf(await chat(gw, gw.masterKey, 'live')).code, 'model_not_found');
    });

    it('resolve answers the profile of each operation and saves nothing', async () => {
      const count = await deploymentCount(gw);
      const res = await admin.post<{ operations: Record<string, Json> }>('/admin/deployments/resolve', {
        publicModel: 'resolved',
        provider: 'anthropic',
        upstreamModel: 'claude-sonnet-4-5',
        pricing: { inputCentsPerMTok: 300, outputCentsPerMTok: 1500 },
        profile: {
          operations: { messages: { params: { max_tokens: { max: 4096 } } }, 'chat.completions': {} },
        },
      });
      assert.equal(res.status, 200, res.raw);
      assert.deepEqual(Object.keys(res.body.operations).sort(), ['chat.completions', 'messages']);
      const messages = res.body.operations.messages;
      assert.equal(messages.mode, 'native');
      assert.deepEqual(messages.transports, ['json', 'sse']);
      assert.deepEqual(messages.params, { max_tokens: { max: 4096 } });
      assert.equal(messages.priceSource, 'override');
      assert.ok('contextWindow' in messages && 'capabilities' in messages);
      const chatOp = res.body.operations['chat.completions'];
      assert.equal(chatOp.mode, 'translated');
      assert.equal(chatOp.via, 'messages');
      assert.equal(await deploymentCount(gw), count, 'nothing saved');
    });

    it('resolve without a profile lists every operation the provider serves', async () => {
      const res = await admin.post<{ operations: Record<string, Json> }>('/admin/deployments/resolve', {
        publicModel: 'r',
        provider: 'openai',
        upstreamModel: 'gpt-4o-mini',
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.operations['images.edits'].transports, ['json', 'multipart']);
      assert.deepEqual(res.body.operations.embeddings.transports, ['json']);
      const chatOp = res.body.operations['chat.completions'];
      assert.equal(chatOp.mode, 'native');
      assert.equal(chatOp.priceSource, 'catalog', 'the catalog prices gpt-4o-mini');
      assert.equal(typeof chatOp.contextWindow, 'number');
      assert.equal((chatOp.capabilities as Json).tools, true);
      const unknown = await admin.post<{ operations: Record<string, Json> }>('/admin/deployments/resolve', {
        publicModel: 'r',
        provider: 'openai-compatible',
        upstreamModel: 'my-own-finetune',
        baseUrl: 'http://127.0.0.1:1/v1',
      });
      assert.equal(unknown.body.operations['chat.completions'].priceSource, 'none');
      assert.equal(unknown.body.operations['chat.completions'].contextWindow, null);
      const bad = await admin.post('/admin/deployments/resolve', { publicModel: 'r', provider: 'x' });
      assert.equal(errorOf(bad).param, 'upstreamModel');
    });
  });
}

describe('/admin/deployments across replicas (postgres + redis)', () => {
  let first: TestGateway;
  let second: TestGateway;
  let fake: OpenAIFake;
  before(async () => {
    fake = await new OpenAIFake().start();
    first = await startTestGateway();
    second = await startTestGateway({ database: first.database, env: sharedEnv(first) });
  });
  after(async () => {
    await second.close();
    await first.close();
    await fake.close();
  });

  it('a deployment created on one replica serves on another', async () => {
    const admin = new AdminClient(first);
    const res = await admin.post('/admin/deployments', {
      publicModel: 'shared',
      provider: 'openai',
      upstreamModel: 'gpt-4o-mini',
      apiKey: 'sk-shared',
      baseUrl: fake.baseUrl,
    });
    assert.equal(res.status, 201);
    await eventually(async () => assert.equal((await chat(second, second.masterKey, 'shared')).status, 200));
    await admin.patch(`/admin/deployments/${res.body.id}`, { enabled: false });
    await eventually(async () =>
      assert.equal(errorOf(await chat(second, second.masterKey, 'shared')).code, 'model_not_found'),
    );
  });
});

/** The secrets and Redis prefix of a running gateway, so a second one is a replica of it. */
async function envelopeOf(gw: TestGateway, id: string): Promise<string | null> {
  const [row] = await sqlOn(gw.gateway.runtime.database.background)<{ api_key_envelope: string | null }>`
    select api_key_envelope from deployments where id = ${id}`;
  return row.api_key_envelope;
}

async function deploymentCount(gw: TestGateway): Promise<number> {
  const [row] = await sqlOn(gw.gateway.runtime.database.background)<{
    n: number;
  }>`select count(*)::int as n from deployments`;
  return row.n;
}
