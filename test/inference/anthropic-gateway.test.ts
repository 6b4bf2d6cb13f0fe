import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { createKey as issueKey } from '../helpers/admin-api.ts';
import {
  ANTHROPIC_UPSTREAM_KEY,
  anthropicClient,
  createDeployment,
  createKey,
  openaiClient,
  post,
  rejection,
  startUpstreams,
  type Upstreams,
} from './support.ts';

const MESSAGES: Anthropic.MessageParam[] = [{ role: 'user', content: 'count these five words' }];

/**
 * What Claude Code and the Anthropic SDKs require of a gateway: their `anthropic-beta` and
 * `anthropic-version` headers reach Anthropic, `POST /v1/messages/count_tokens`, and `GET
 * /v1/models` in Anthropic's shape.
 */
describe('the Anthropic gateway contract', () => {
  let up: Upstreams;
  let client: Anthropic;
  before(async () => {
    up = await startUpstreams();
    client = anthropicClient(up.gw, up.key);
    await createDeployment(up.gw, {
      publicModel: 'claude-betas',
      provider: 'anthropic',
      upstreamModel: 'claude-sonnet-4-5',
      baseUrl: up.anthropic.url,
      apiKey: ANTHROPIC_UPSTREAM_KEY,
      providerOptions: { betas: ['context-1m-2025-08-07', 'interleaved-thinking-2025-05-14'] },
    });
    for (const [publicModel, upstreamModel] of [
      ['bedrock-nova', 'amazon.nova-pro-v1:0'],
      ['bedrock-claude-us', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'],
    ]) {
      await createDeployment(up.gw, {
        publicModel,
        provider: 'bedrock',
        upstreamModel,
        baseUrl: up.bedrock.baseUrl,
        apiKey: up.bedrock.apiKey,
        providerOptions: { region: up.bedrock.region },
      });
    }
    await createDeployment(up.gw, {
      publicModel: 'vendor/claude',
      provider: 'anthropic',
      upstreamModel: 'claude-sonnet-4-5',
      baseUrl: up.anthropic.url,
      apiKey: ANTHROPIC_UPSTREAM_KEY,
    });
  });
  beforeEach(() => {
    up.anthropic.reset();
    up.bedrock.reset();
  });
  after(() => up?.close());

  describe('headers', () => {
    it("forwards the client's betas (client.beta.messages.create), merged after the deployment's", async () => {
      await client.beta.messages.create({
        model: 'claude-betas',
        max_tokens: 20,
        betas: ['interleaved-thinking-2025-05-14', 'fine-grained-tool-streaming-2025-05-14'],
        messages: MESSAGES,
      });
      const headers = up.anthropic.lastRequest!.headers;
      assert.equal(
        headers['anthropic-beta'],
        'context-1m-2025-08-07,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14',
      );
    });

    it("forwards them on a stream and without deployment betas; keeps the deployment's alone", async () => {
      await client.beta.messages
        .stream({
          model: 'claude',
          max_tokens: 20,
          betas: ['token-efficient-tools-2025-02-19'],
          messages: MESSAGES,
        })
        .finalMessage();
      assert.equal(up.anthropic.lastRequest!.headers['anthropic-beta'], 'token-efficient-tools-2025-02-19');
      await client.messages.create({ model: 'claude-betas', max_tokens: 20, messages: MESSAGES });
      assert.equal(
        up.anthropic.lastRequest!.headers['anthropic-beta'],
        'context-1m-2025-08-07,interleaved-thinking-2025-05-14',
      );
      await client.messages.create({ model: 'claude', max_tokens: 20, messages: MESSAGES });
      assert.equal(up.anthropic.lastRequest!.headers['anthropic-beta'], undefined);
    });

    it("sends the client's anthropic-version, and the gateway's when it sends none", async () => {
      const body = { model: 'claude', max_tokens: 20, messages: MESSAGES };
      const sent = await post(up.gw, up.key, '/messages', body, { 'anthropic-version': '2023-01-01' });
      assert.equal(sent.status, 200);
      assert.equal(up.anthropic.lastRequest!.headers['anthropic-version'], '2023-01-01');
      assert.equal((await post(up.gw, up.key, '/messages', body)).status, 200);
      assert.equal(up.anthropic.lastRequest!.headers['anthropic-version'], '2023-06-01');
    });

    it('never forwards other client headers', async () => {
      await post(
        up.gw,
        up.key,
        '/messages',
        { model: 'claude', max_tokens: 20, messages: MESSAGES },
        { 'x-custom-secret': 'nope', cookie: 'a=b' },
      );
      const headers = up.anthropic.lastRequest!.headers;
      assert.equal(headers['x-custom-secret'], undefined);
      assert.equal(headers.cookie, undefined);
      assert.equal(headers['x-api-key'], ANTHROPIC_UPSTREAM_KEY);
    });
  });

  describe('POST /v1/messages/count_tokens', () => {
    it('passes through to Anthropic on an Anthropic deployment (client.messages.countTokens)', async () => {
      const count = await client.messages.countTokens({
        model: 'claude-betas',
        system: 'two words',
        messages: MESSAGES,
      });
      assert.deepEqual(count, { input_tokens: 6 });
      const request = up.anthropic.lastRequest!;
      assert.equal(request.path, '/v1/messages/count_tokens');
      assert.equal((request.body as { model: string }).model, 'claude-sonnet-4-5');
      assert.equal(request.headers['x-api-key'], ANTHROPIC_UPSTREAM_KEY);
      assert.equal(
        request.headers['anthropic-beta'],
        'context-1m-2025-08-07,interleaved-thinking-2025-05-14',
      );
      const raw = await post(up.gw, up.key, '/messages/count_tokens', {
        model: 'claude',
        messages: MESSAGES,
      });
      assert.equal(raw.headers.get('x-switchyard-token-count'), 'provider');
      assert.ok(raw.headers.get('x-switchyard-deployment'));
    });

    it("counts with Bedrock's CountTokens on Bedrock Claude deployments, the client's body and betas as Claude's InvokeModel body", async () => {
      for (const [model, modelId] of [
        ['nova', 'anthropic.claude-3-5-sonnet-20241022-v2:0'],
        // A cross-region inference profile counts as its foundation model.
        ['bedrock-claude-us', 'anthropic.claude-sonnet-4-5-20250929-v1:0'],
      ]) {
        const count = await client.beta.messages.countTokens({
          model,
          betas: ['token-efficient-tools-2025-02-19'],
          system: 'two words',
          messages: MESSAGES,
        });
        assert.deepEqual(count, { input_tokens: 6 }, model);
        const request = up.bedrock.lastRequest!;
        assert.deepEqual([request.operation, request.modelId], ['count-tokens', modelId]);
        const encoded = (request.body as { input: { invokeModel: { body: string } } }).input.invokeModel.body;
        const invokeBody = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as Record<
          string,
          unknown
        >;
        assert.deepEqual(invokeBody, {
          anthropic_version: 'bedrock-2023-05-31',
          max_tokens: 1,
          system: 'two words',
          messages: MESSAGES,
          anthropic_beta: ['token-efficient-tools-2025-02-19'],
        });
      }
      const raw = await post(up.gw, up.key, '/messages/count_tokens', { model: 'nova', messages: MESSAGES });
      assert.equal(raw.headers.get('x-switchyard-token-count'), 'provider');
    });

    it("counts with Gemini's countTokens on Gemini deployments, the body translated as a call would be", async () => {
      const count = await client.messages.countTokens({
        model: 'gemini',
        system: 'two words',
        messages: MESSAGES,
      });
      // The fake counts words: the system instruction and the contents.
      assert.deepEqual(count, { input_tokens: 6 });
      const request = up.gemini.lastRequest!;
      assert.equal(request.rpc, 'countTokens');
      const sent = (request.body as { generateContentRequest: Record<string, unknown> })
        .generateContentRequest;
      assert.equal(sent.model, 'models/gemini-2.5-flash');
      assert.deepEqual(sent.systemInstruction, { parts: [{ text: 'two words' }] });
      const raw = await post(up.gw, up.key, '/messages/count_tokens', {
        model: 'gemini',
        messages: MESSAGES,
      });
      assert.equal(raw.headers.get('x-switchyard-token-count'), 'provider');
      // Found by openapi-fuzz: a message the translator cannot read is the client's 400, not a 502.
      const malformed = await post(up.gw, up.key, '/messages/count_tokens', {
        model: 'gemini',
        messages: [{ role: '' }],
      });
      assert.equal(malformed.status, 400, malformed.text);
    });

    it("estimates with the gateway's tokenizer on other providers and on Bedrock models other than Claude", async () => {
      for (const model of ['gpt', 'bedrock-nova']) {
        const count = await client.messages.countTokens({ model, messages: MESSAGES });
        // o200k_base: 4 tokens of text, 4 per message, 3 to prime the reply.
        assert.deepEqual(count, { input_tokens: 11 }, model);
      }
      const raw = await post(up.gw, up.key, '/messages/count_tokens', { model: 'gpt', messages: MESSAGES });
      assert.equal(raw.headers.get('x-switchyard-token-count'), 'estimate');
      assert.equal(up.anthropic.requests.length, 0);
      assert.equal(up.bedrock.requests.length, 0);
    });

    it('is authenticated and key-scoped, in the Anthropic error shape', async () => {
      const scoped = anthropicClient(up.gw, await createKey(up.gw, ['gpt']));
      const denied = await rejection<InstanceType<typeof Anthropic.APIError>>(
        scoped.messages.countTokens({ model: 'claude', messages: MESSAGES }),
      );
      assert.ok(denied instanceof Anthropic.PermissionDeniedError);
      assert.equal((denied.error as { error: { type: string } }).error.type, 'permission_error');
      const missing = await rejection<InstanceType<typeof Anthropic.APIError>>(
        client.messages.countTokens({ model: 'no-such-model', messages: MESSAGES }),
      );
      assert.ok(missing instanceof Anthropic.NotFoundError);
      const anonymous = new Anthropic({ apiKey: 'sk-wrong-key', baseURL: up.gw.url, maxRetries: 0 });
      const refused = await rejection(
        anonymous.messages.countTokens({ model: 'claude', messages: MESSAGES }),
      );
      assert.ok(refused instanceof Anthropic.AuthenticationError);
      const invalid = await post(up.gw, up.key, '/messages/count_tokens', { model: 'claude' });
      assert.equal(invalid.status, 400);
      assert.equal((invalid.json().error as { type: string }).type, 'invalid_request_error');
    });

    it("is not billed: it takes nothing of the key's request limit", async () => {
      const { key } = await issueKey(up.gw, { name: 'rpm-1', allowedModels: ['*'], rpmLimit: 1 });
      const limited = anthropicClient(up.gw, key);
      for (let i = 0; i < 3; i++) await limited.messages.countTokens({ model: 'claude', messages: MESSAGES });
      const message = await limited.messages.create({ model: 'claude', max_tokens: 20, messages: MESSAGES });
      assert.equal(message.type, 'message');
    });

    it("answers an upstream refusal in Anthropic's shape", async () => {
      up.anthropic.enqueue({
        status: 400,
        body: { type: 'error', error: { type: 'invalid_request_error', message: 'messages.0: bad' } },
      });
      const error = await rejection(client.messages.countTokens({ model: 'claude', messages: MESSAGES }));
      assert.ok(error instanceof Anthropic.BadRequestError);
    });
  });

  describe('GET /v1/models', () => {
    it("lists in Anthropic's shape for an Anthropic caller (client.models.list, paginated)", async () => {
      const ids: string[] = [];
      for await (const model of client.models.list({ limit: 2 })) {
        assert.equal(model.type, 'model');
        assert.equal(model.display_name, model.id);
        assert.equal(model.created_at, '1970-01-01T00:00:00Z');
        ids.push(model.id);
      }
      assert.deepEqual(ids, [...ids].sort());
      assert.ok(ids.includes('claude') && ids.includes('gpt') && ids.includes('claude-betas'));
      const raw = await fetch(`${up.gw.url}/v1/models?limit=2`, {
        headers: { 'x-api-key': up.key, 'anthropic-version': '2023-06-01' },
      });
      const page = (await raw.json()) as Record<string, unknown>;
      assert.deepEqual(Object.keys(page).sort(), ['data', 'first_id', 'has_more', 'last_id']);
      assert.equal(page.has_more, true);
      assert.equal(page.first_id, ids[0]);
      assert.equal(page.last_id, ids[1]);
    });

    it('answers a bad page query with a 400 in the Anthropic shape', async () => {
      const raw = await fetch(`${up.gw.url}/v1/models?limit=0`, {
        headers: { 'x-api-key': up.key, 'anthropic-version': '2023-06-01' },
      });
      assert.equal(raw.status, 400);
      const body = (await raw.json()) as { type: string; error: { type: string } };
      assert.equal(body.type, 'error');
      assert.equal(body.error.type, 'invalid_request_error');
    });

    it("lists in OpenAI's shape otherwise", async () => {
      const page = await openaiClient(up.gw, up.key).models.list();
      assert.ok(page.data.some((model) => model.id === 'claude' && model.object === 'model'));
    });

    it('retrieves one model in both shapes (client.models.retrieve)', async () => {
      const anthropicModel = await client.models.retrieve('claude');
      assert.equal(anthropicModel.id, 'claude');
      assert.equal(anthropicModel.type, 'model');
      const openaiModel = await openaiClient(up.gw, up.key).models.retrieve('claude');
      assert.deepEqual(
        { id: openaiModel.id, object: openaiModel.object, owned_by: openaiModel.owned_by },
        { id: 'claude', object: 'model', owned_by: 'switchyard' },
      );
      assert.equal((await client.models.retrieve('vendor/claude')).id, 'vendor/claude');
      assert.equal((await openaiClient(up.gw, up.key).models.retrieve('vendor/claude')).id, 'vendor/claude');
    });

    it('answers 404 in the caller’s shape for a model that does not exist or the key may not use', async () => {
      const scopedKey = await createKey(up.gw, ['gpt']);
      for (const [key, id] of [
        [up.key, 'no-such-model'],
        [scopedKey, 'claude'],
      ]) {
        const anthropicError = await rejection(anthropicClient(up.gw, key).models.retrieve(id));
        assert.ok(anthropicError instanceof Anthropic.NotFoundError);
        assert.deepEqual(
          (anthropicError.error as { type: string; error: { type: string } }).error.type,
          'not_found_error',
        );
        const openaiError = await rejection(openaiClient(up.gw, key).models.retrieve(id));
        assert.ok(openaiError instanceof OpenAI.NotFoundError);
        assert.equal(openaiError.code, 'model_not_found');
      }
    });
  });
});
