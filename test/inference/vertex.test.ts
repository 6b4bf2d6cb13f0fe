/**
 * Vertex AI (issue 34) through the official clients: Gemini through generateContent and
 * streamGenerateContent with the `openai` client, Claude through rawPredict and streamRawPredict
 * with the `@anthropic-ai/sdk` client (and with `openai`, translated), each authenticated by an
 * OAuth token google-auth-library obtained from the deployment's service-account key at the local
 * token endpoint the key's `token_uri` names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { AnthropicFake } from '../fakes/anthropic-fake.ts';
import { GeminiFake } from '../fakes/gemini-fake.ts';
import { type FakeServiceAccount, GoogleOAuthFake } from '../fakes/google-oauth-fake.ts';
import { VertexFake } from '../fakes/vertex-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import {
  admin,
  anthropicClient,
  assertPlainAndStreamedEcho,
  createDeployment,
  createKey,
  openaiClient,
  resolveDeployment,
} from './support.ts';

const ANTHROPIC_KEY = 'sk-ant-vertex-backend-0001';
const PROJECT = 'switchyard-test';

describe('Vertex AI through the official clients', () => {
  let oauth: GoogleOAuthFake;
  let gemini: GeminiFake;
  let anthropic: AnthropicFake;
  let vertex: VertexFake;
  let gw: TestGateway;
  let openai: OpenAI;
  let claude: Anthropic;
  let account: FakeServiceAccount;

  before(async () => {
    oauth = await new GoogleOAuthFake().start();
    gemini = await GeminiFake.start();
    anthropic = await new AnthropicFake({ apiKey: ANTHROPIC_KEY }).start();
    vertex = await new VertexFake({ oauth, gemini, anthropic, anthropicKey: ANTHROPIC_KEY }).start();
    account = oauth.serviceAccount('gateway');
    gw = await startTestGateway();
    const key = await createKey(gw);
    openai = openaiClient(gw, key);
    claude = anthropicClient(gw, key);
    for (const [publicModel, upstreamModel, region] of [
      ['vertex-gemini', 'gemini-2.5-flash', 'us-central1'],
      ['vertex-claude', 'claude-sonnet-4-5@20250929', 'global'],
      ['vertex-embed', 'gemini-embedding-001', 'us-central1'],
    ]) {
      await createDeployment(gw, {
        publicModel,
        provider: 'vertex',
        upstreamModel,
        baseUrl: vertex.url,
        apiKey: account.keyFile,
        providerOptions: { project: PROJECT, region },
      });
    }
  });
  after(async () => {
    await gw?.close();
    await Promise.all([vertex?.close(), oauth?.close(), gemini?.close(), anthropic?.close()]);
  });

  it('Gemini: generateContent and streamGenerateContent with a bearer token', async () => {
    await assertPlainAndStreamedEcho(openai, 'vertex-gemini');
    const seen = vertex.requests.filter((request) => request.publisher === 'google');
    assert.deepEqual(
      seen.map(({ project, region, model, method }) => [project, region, model, method]),
      [
        [PROJECT, 'us-central1', 'gemini-2.5-flash', 'generateContent'],
        [PROJECT, 'us-central1', 'gemini-2.5-flash', 'streamGenerateContent'],
      ],
    );
    for (const request of seen) assert.match(String(request.authorization), /^Bearer ya29\.fake-/);
  });

  it('Claude: rawPredict and streamRawPredict with the Vertex body, through the Anthropic SDK', async () => {
    const message = await claude.messages.create({
      model: 'vertex-claude',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hello claude' }],
    });
    assert.equal(message.content[0].type === 'text' && message.content[0].text, 'echo: hello claude');
    assert.equal(message.model, 'vertex-claude');
    const stream = claude.messages.stream({
      model: 'vertex-claude',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'streamed claude' }],
    });
    const final = await stream.finalMessage();
    assert.equal(final.content[0].type === 'text' && final.content[0].text, 'echo: streamed claude');
    const seen = vertex.requests.filter((request) => request.publisher === 'anthropic');
    assert.deepEqual(
      seen.map(({ region, method }) => [region, method]),
      [
        ['global', 'rawPredict'],
        ['global', 'streamRawPredict'],
      ],
    );
    for (const request of seen) {
      assert.equal(request.body.anthropic_version, 'vertex-2023-10-16');
      assert.ok(!('model' in request.body), 'the model is in the path, not the body');
    }
  });

  it("count_tokens on Claude: Vertex's count-tokens:rawPredict with the model in the body, through the Anthropic SDK", async () => {
    const counted = await claude.messages.countTokens({
      model: 'vertex-claude',
      system: 'be brief',
      messages: [{ role: 'user', content: 'count these four words' }],
    });
    assert.equal(
      counted.input_tokens,
      6,
      "the Anthropic fake's count: words of the system prompt and messages",
    );
    const seen = vertex.requests.filter((request) => request.model === 'count-tokens');
    assert.equal(seen.length, 1);
    const [request] = seen;
    assert.deepEqual(
      [request.publisher, request.region, request.method],
      ['anthropic', 'global', 'rawPredict'],
    );
    assert.equal(request.body.model, 'claude-sonnet-4-5@20250929');
    assert.match(String(request.authorization), /^Bearer ya29\.fake-/);
  });

  it('Claude through the openai client: Chat translated to Messages, JSON and SSE', async () => {
    const plain = await openai.chat.completions.create({
      model: 'vertex-claude',
      messages: [{ role: 'user', content: 'chat on claude' }],
    });
    assert.equal(plain.choices[0].message.content, 'echo: chat on claude');
    const stream = await openai.chat.completions.create({
      model: 'vertex-claude',
      stream: true,
      messages: [{ role: 'user', content: 'chat stream' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    assert.equal(text, 'echo: chat stream');
  });

  it("embeddings through :predict, with Vertex's token counts", async () => {
    const answer = await openai.embeddings.create({
      model: 'vertex-embed',
      input: ['one two three', 'four'],
      dimensions: 4,
    });
    assert.deepEqual(
      answer.data.map(({ index, embedding }) => [index, embedding.length]),
      [
        [0, 4],
        [1, 4],
      ],
    );
    assert.equal(answer.usage.prompt_tokens, 4);
    const [seen] = vertex.requests.filter((request) => request.method === 'predict');
    assert.deepEqual(seen.body, {
      instances: [{ content: 'one two three' }, { content: 'four' }],
      parameters: { outputDimensionality: 4 },
    });
  });

  it('one token per deployment, reused for every call until it nears expiry', () => {
    assert.ok(oauth.tokenRequests.length >= 1);
    assert.ok(
      oauth.tokenRequests.length <= 3,
      `${oauth.tokenRequests.length} token requests for 3 deployments`,
    );
  });

  it('resolve names the credential source; bad options are refused naming the field', async () => {
    const resolve = (fields: Record<string, unknown>) =>
      resolveDeployment(gw, {
        publicModel: 'r',
        provider: 'vertex',
        upstreamModel: 'gemini-2.5-flash',
        ...fields,
      });
    const options = { project: PROJECT, region: 'us-central1' };
    const json = async (answer: Promise<Response>) =>
      (await (await answer).json()) as Record<string, unknown>;
    const withKey = await json(resolve({ apiKey: account.keyFile, providerOptions: options }));
    assert.equal(withKey.credentialSource, 'google-service-account');
    assert.ok(!JSON.stringify(withKey).includes('PRIVATE KEY'));
    assert.equal((await json(resolve({ providerOptions: options }))).credentialSource, 'google-default');
    const missing = await resolve({ providerOptions: { region: 'us-central1' } });
    assert.equal(missing.status, 400);
    assert.equal(
      ((await missing.json()) as { error: { param: string } }).error.param,
      'providerOptions.project',
    );
    const claudeOps = await admin<{
      operations: Record<string, { mode: string; via: string | null; priceSource: string }>;
    }>(gw, 'POST', '/deployments/resolve', {
      publicModel: 'r',
      provider: 'vertex',
      upstreamModel: 'claude-sonnet-4-5@20250929',
      providerOptions: options,
    });
    assert.equal(claudeOps.operations.messages.mode, 'native');
    assert.equal(
      claudeOps.operations.messages.priceSource,
      'catalog',
      'Vertex prices Claude by its @version id',
    );
    assert.equal(claudeOps.operations['chat.completions'].via, 'messages');
  });
});
