import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { admin, createDeployment, createKey, openaiClient } from './support.ts';

describe('GET /v1/models', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway({ redis: false });
    const deploy = (publicModel: string, enabled = true) =>
      createDeployment(gw, {
        publicModel,
        provider: 'openai',
        upstreamModel: 'gpt-4o-mini',
        baseUrl: fake.baseUrl,
        apiKey: 'sk-x',
        enabled,
      });
    await deploy('beta');
    await deploy('alpha');
    await deploy('alpha');
    await deploy('gamma', false);
    const off = await deploy('mixed', false);
    await deploy('mixed');
    assert.ok(off.id);
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
  });

  async function listed(key: string): Promise<string[]> {
    const page = await openaiClient(gw, key).models.list();
    return page.data.map((model) => model.id);
  }

  it('lists every model with an enabled deployment for the master key, in the OpenAI format', async () => {
    const response = await fetch(`${gw.url}/v1/models`, {
      headers: { authorization: `Bearer ${gw.masterKey}` },
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { object: string; data: Record<string, unknown>[] };
    assert.equal(body.object, 'list');
    assert.deepEqual(
      body.data.map((model) => model.id),
      ['alpha', 'beta', 'mixed'],
    );
    assert.deepEqual(body.data[0], { id: 'alpha', object: 'model', created: 0, owned_by: 'switchyard' });
    assert.ok(response.headers.get('x-request-id'));
  });

  it('lists only the models a virtual key may use', async () => {
    assert.deepEqual(await listed(await createKey(gw, ['beta', 'gamma', 'unknown'])), ['beta']);
    assert.deepEqual(await listed(await createKey(gw, ['*'])), ['alpha', 'beta', 'mixed']);
  });

  it('follows deployment changes', async () => {
    const created = await createDeployment(gw, {
      publicModel: 'delta',
      provider: 'openai',
      upstreamModel: 'gpt-4o-mini',
      baseUrl: fake.baseUrl,
      apiKey: 'sk-x',
    });
    assert.ok((await listed(gw.masterKey)).includes('delta'));
    await admin(gw, 'PATCH', `/deployments/${created.id}`, { enabled: false });
    assert.ok(!(await listed(gw.masterKey)).includes('delta'));
  });

  it('needs a key', async () => {
    const response = await fetch(`${gw.url}/v1/models`);
    assert.equal(response.status, 401);
  });
});
