/**
 * Azure OpenAI with Microsoft Entra ID (issue 34 item 3) through the official clients: a
 * deployment whose stored key is an app registration's client secret gets its bearer tokens from
 * `@azure/identity` at the local HTTPS authority (test/fakes/entra-fake.ts, trusted through the
 * process's CA list), and the Azure fake accepts only tokens that authority issued. The same
 * deployment declares the Responses API, served natively at `/openai/v1/responses`.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { EntraFake } from '../fakes/entra-fake.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { trustInThisProcess } from '../fakes/tls-certificate.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import {
  admin,
  anthropicClient,
  assertPlainAndStreamedEcho,
  createDeployment,
  createKey,
  openaiClient,
  rejection,
  resolveDeployment,
} from './support.ts';

const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const CLIENT = '0f1e2d3c-4b5a-4697-8897-a6b5c4d3e2f1';
const SECRET = 'entra-e2e-client-secret-0001-Q8~xYz';

describe('Azure OpenAI with Entra ID through the official clients', () => {
  let entra: EntraFake;
  let azure: OpenAIFake;
  let gw: TestGateway;
  let client: OpenAI;
  const entraOptions = () => ({ tenantId: TENANT, clientId: CLIENT, authorityHost: entra.url });

  before(async () => {
    trustInThisProcess();
    entra = await new EntraFake().start();
    entra.allowSecret(CLIENT, SECRET);
    azure = await new OpenAIFake({ azureBearer: (token) => entra.issued(token) }).start();
    gw = await startTestGateway({ redis: false });
    client = openaiClient(gw, await createKey(gw));
    await createDeployment(gw, {
      publicModel: 'azure-entra',
      provider: 'azure',
      upstreamModel: 'gpt-4o-mini',
      baseUrl: azure.url,
      apiKey: SECRET,
      providerOptions: { entra: entraOptions(), responsesApi: true },
    });
  });
  beforeEach(() => azure.reset());
  after(async () => {
    await gw?.close();
    await Promise.all([azure?.close(), entra?.close()]);
  });

  /** The Azure fake's requests: each with an Entra token and no api-key. */
  function assertEntraAuthorized(): void {
    assert.ok(azure.requests.length > 0);
    for (const request of azure.requests) {
      const token = String(request.headers.authorization).replace(/^Bearer /, '');
      assert.ok(entra.issued(token), 'a token the authority issued');
      assert.equal(request.headers['api-key'], undefined, 'the client secret is never sent to Azure OpenAI');
    }
  }

  it('chat, plain and streamed, on the v1 API with a bearer token from the client secret', async () => {
    const grantsBefore = entra.grants.length;
    await assertPlainAndStreamedEcho(client, 'azure-entra');
    assert.deepEqual(
      azure.requests.map((r) => [r.path, (r.body as { model: string }).model]),
      [
        ['/openai/v1/chat/completions', 'gpt-4o-mini'],
        ['/openai/v1/chat/completions', 'gpt-4o-mini'],
      ],
    );
    assertEntraAuthorized();
    assert.ok(entra.grants.length - grantsBefore <= 1, 'one token for both calls');
    assert.ok(entra.grants.every((g) => g.grant === 'client_secret' && g.tenant === TENANT));
  });

  it('Responses natively at /openai/v1/responses, plain and streamed, stateless', async () => {
    const plain = await client.responses.create({ model: 'azure-entra', input: 'hello responses' });
    assert.equal(plain.output_text, 'echo: hello responses');
    const stream = client.responses.stream({ model: 'azure-entra', input: 'streamed responses' });
    const final = await stream.finalResponse();
    assert.equal(final.output_text, 'echo: streamed responses');
    assert.deepEqual(
      azure.requests.map((r) => r.path),
      ['/openai/v1/responses', '/openai/v1/responses'],
    );
    for (const request of azure.requests) {
      const body = request.body as { model: string; store: boolean };
      assert.equal(body.model, 'gpt-4o-mini', 'the deployment name is the model');
      assert.equal(body.store, false, 'the gateway keeps the conversation');
    }
    assertEntraAuthorized();
  });

  it('an Anthropic client reaches the same deployment through the Messages translation', async () => {
    const message = await anthropicClient(gw, await createKey(gw)).messages.create({
      model: 'azure-entra',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi from claude sdk' }],
    });
    assert.deepEqual(
      message.content.map((block) => (block.type === 'text' ? block.text : block.type)),
      ['echo: hi from claude sdk'],
    );
    assertEntraAuthorized();
  });

  it('a secret the authority refuses is 502 upstream_auth_failed and Azure is never called', async () => {
    await createDeployment(gw, {
      publicModel: 'azure-entra-wrong',
      provider: 'azure',
      upstreamModel: 'gpt-4o-mini',
      baseUrl: azure.url,
      apiKey: 'entra-wrong-secret-0002-Zk~abc',
      providerOptions: { entra: entraOptions() },
    });
    const error = await rejection<InstanceType<typeof OpenAI.APIError>>(
      client.chat.completions.create({
        model: 'azure-entra-wrong',
        messages: [{ role: 'user', content: 'x' }],
      }),
    );
    assert.equal(error.status, 502);
    assert.equal((error.error as { code?: string }).code, 'upstream_auth_failed');
    assert.equal(azure.requests.length, 0);
  });

  it('a keyless deployment on AKS uses workload identity federation', async () => {
    const env = entra.workloadIdentityEnv(TENANT, CLIENT);
    Object.assign(process.env, env);
    try {
      await createDeployment(gw, {
        publicModel: 'azure-workload',
        provider: 'azure',
        upstreamModel: 'gpt-4o-mini',
        baseUrl: azure.url,
      });
      const answer = await client.chat.completions.create({
        model: 'azure-workload',
        messages: [{ role: 'user', content: 'federated' }],
      });
      assert.equal(answer.choices[0].message.content, 'echo: federated');
      assert.equal(entra.grants.at(-1)?.grant, 'client_assertion');
      assertEntraAuthorized();
    } finally {
      for (const name of Object.keys(env)) delete process.env[name];
    }
  });

  it('resolve names azure-entra-id; an http authority or a too-old version for Responses is refused by name', async () => {
    const resolve = (fields: Record<string, unknown>) =>
      resolveDeployment(gw, {
        publicModel: 'r',
        provider: 'azure',
        upstreamModel: 'gpt-4o-mini',
        baseUrl: azure.url,
        ...fields,
      });
    const resolved = (await (
      await resolve({ apiKey: SECRET, providerOptions: { entra: entraOptions(), responsesApi: true } })
    ).json()) as { credentialSource: string; operations: Record<string, { mode: string }> };
    assert.equal(resolved.credentialSource, 'azure-entra-id');
    assert.equal(resolved.operations.responses.mode, 'native');
    assert.ok(!JSON.stringify(resolved).includes(SECRET));
    const keyed = (await (await resolve({ apiKey: 'k' })).json()) as Record<string, unknown>;
    assert.equal(keyed.credentialSource, 'azure-api-key');
    for (const [providerOptions, param] of [
      [{ entra: { authorityHost: 'http://login.example' } }, 'providerOptions.entra.authorityHost'],
      [{ responsesApi: true, apiVersion: '2024-10-21' }, 'providerOptions.responsesApi'],
      [{ apiVersion: 'latest' }, 'providerOptions.apiVersion'],
    ] as const) {
      const refused = await resolve({ providerOptions });
      assert.equal(refused.status, 400);
      assert.equal(((await refused.json()) as { error: { param: string } }).error.param, param);
    }
  });

  it('a field the pinned api-version predates is refused naming it, before Azure is called', async () => {
    await admin(gw, 'POST', '/deployments', {
      publicModel: 'azure-pinned',
      provider: 'azure',
      upstreamModel: 'gpt-4o-mini',
      baseUrl: azure.url,
      apiKey: SECRET,
      providerOptions: { entra: entraOptions(), apiVersion: '2024-10-21' },
    });
    const error = await rejection<InstanceType<typeof OpenAI.APIError>>(
      client.chat.completions.create({
        model: 'azure-pinned',
        reasoning_effort: 'low',
        messages: [{ role: 'user', content: 'x' }],
      }),
    );
    assert.equal(error.status, 400);
    assert.equal(error.param, 'reasoning_effort');
    assert.equal(azure.requests.length, 0);
    const plain = await client.chat.completions.create({
      model: 'azure-pinned',
      messages: [{ role: 'user', content: 'pinned' }],
    });
    assert.equal(plain.choices[0].message.content, 'echo: pinned');
    assert.equal(azure.lastRequest?.path, '/openai/deployments/gpt-4o-mini/chat/completions');
    assert.equal(azure.lastRequest?.query['api-version'], '2024-10-21');
  });
});
