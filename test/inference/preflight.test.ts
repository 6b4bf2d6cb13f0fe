import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { estimateInputTokens } from '../../src/formats/estimate-tokens.ts';
import { AnthropicFake } from '../fakes/anthropic-fake.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { createDeployment, createKey, post } from './support.ts';

type OpenAIError = { error: { code: string; param: string | null; type: string; message: string } };

const PNG_DATA_URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/**
 * Each pre-flight check through HTTP (SPEC.md, Errors: Codes): the code, the status and `param`,
 * and that no upstream saw the call.
 */
describe('pre-flight checks before any upstream call', () => {
  let openai: OpenAIFake;
  let anthropic: AnthropicFake;
  let gw: TestGateway;
  let key: string;

  before(async () => {
    openai = await new OpenAIFake().start();
    anthropic = await new AnthropicFake().start();
    gw = await startTestGateway();
    const deploy = (publicModel: string, upstreamModel: string, profile?: Record<string, unknown>) =>
      createDeployment(gw, {
        publicModel,
        provider: 'openai',
        upstreamModel,
        baseUrl: openai.baseUrl,
        apiKey: 'sk-up',
        ...(profile ? { profile } : {}),
      });
    await deploy('chat', 'gpt-4o-mini', { operations: { 'chat.completions': {} } });
    await deploy('old', 'gpt-3.5-turbo');
    await deploy('old-reasoning', 'gpt-3.5-turbo', {
      operations: { 'chat.completions': { params: { reasoning_effort: ['low'] } } },
    });
    await deploy('embed', 'text-embedding-3-small');
    await deploy('pic', 'gpt-image-1', {
      operations: {
        'images.generations': {
          params: { size: ['1024x1024'], quality: ['low', 'medium'], response_format: ['b64_json'] },
        },
        'images.edits': { params: { n: { min: 1, max: 2 } } },
      },
    });
    await deploy('json-only', 'gpt-4o-mini', {
      operations: { 'chat.completions': { transports: ['json'] } },
    });
    await deploy('sse-only', 'gpt-4o-mini', { operations: { 'chat.completions': { transports: ['sse'] } } });
    // A pool of two: only the second takes a 512x512 image.
    await deploy('pool', 'gpt-image-1', {
      operations: { 'images.generations': { params: { size: ['1024x1024'] } } },
    });
    const wide = await deploy('pool', 'gpt-image-1', {
      operations: { 'images.generations': { params: { size: ['1024x1024', '512x512'] } } },
    });
    wideId = wide.id;
    await createDeployment(gw, {
      publicModel: 'claude35',
      provider: 'anthropic',
      upstreamModel: 'claude-3-5-sonnet-20241022',
      baseUrl: anthropic.url,
      apiKey: 'sk-ant',
    });
    await createDeployment(gw, {
      publicModel: 'claude2',
      provider: 'anthropic',
      upstreamModel: 'claude-2.1',
      baseUrl: anthropic.url,
      apiKey: 'sk-ant',
    });
    key = await createKey(gw, [
      'chat',
      'old',
      'old-reasoning',
      'embed',
      'pic',
      'json-only',
      'sse-only',
      'pool',
      'claude35',
      'claude2',
    ]);
  });
  let wideId = '';
  after(async () => {
    await gw?.close();
    await openai?.close();
    await anthropic?.close();
  });

  /** Calls and checks the refusal; no upstream may have been called. */
  async function refused(
    path: string,
    body: unknown,
    expected: { status: number; code: string; param: string | null },
    token = key,
  ): Promise<OpenAIError['error']> {
    const before = openai.requests.length + anthropic.requests.length;
    const answer = await post(gw, token, path, body);
    assert.equal(answer.status, expected.status, answer.text);
    const error = (answer.json() as OpenAIError).error;
    assert.equal(error.code, expected.code);
    assert.equal(error.param, expected.param);
    assert.equal(openai.requests.length + anthropic.requests.length, before, 'no upstream call');
    return error;
  }

  const hi = (model: string, extra: Record<string, unknown> = {}) => ({
    model,
    messages: [{ role: 'user', content: 'hi' }],
    ...extra,
  });

  describe('model_not_allowed and model_not_found', () => {
    it('refuses a model outside the key scope with 403 before saying whether it exists', async () => {
      await refused('/chat/completions', hi('unknown'), {
        status: 403,
        code: 'model_not_allowed',
        param: 'model',
      });
    });

    it('refuses an unknown model, and a model that does not serve the operation, with 404', async () => {
      await refused(
        '/chat/completions',
        hi('unknown'),
        { status: 404, code: 'model_not_found', param: 'model' },
        gw.masterKey,
      );
      // `chat` is profiled for chat.completions only; `pic` serves no chat.
      await refused(
        '/embeddings',
        { model: 'chat', input: 'x' },
        { status: 404, code: 'model_not_found', param: 'model' },
      );
      await refused('/chat/completions', hi('pic'), { status: 404, code: 'model_not_found', param: 'model' });
    });
  });

  describe('unsupported_parameter', () => {
    for (const [param, value] of [
      ['size', '512x512'],
      ['quality', 'high'],
      ['response_format', 'url'],
    ] as const) {
      it(`refuses image ${param} ${value} outside the profile, naming it`, async () => {
        const error = await refused(
          '/images/generations',
          { model: 'pic', prompt: 'a cat', [param]: value },
          { status: 400, code: 'unsupported_parameter', param },
        );
        assert.match(error.message, new RegExp(`'${param}'`));
        assert.equal(error.type, 'invalid_request_error');
      });
    }

    it('accepts values inside the profile', async () => {
      const answer = await post(gw, key, '/images/generations', {
        model: 'pic',
        prompt: 'a cat',
        size: '1024x1024',
        quality: 'low',
      });
      assert.equal(answer.status, 200, answer.text);
    });

    it('checks multipart fields, numbers included, against the profile', async () => {
      const form = new FormData();
      form.append('model', 'pic');
      form.append('prompt', 'edit');
      form.append('n', '3');
      form.append('image', new Blob([Buffer.from('png')], { type: 'image/png' }), 'a.png');
      const before = openai.requests.length;
      const answer = await post(gw, key, '/images/edits', form);
      assert.equal(answer.status, 400, answer.text);
      const error = (answer.json() as OpenAIError).error;
      assert.equal(error.code, 'unsupported_parameter');
      assert.equal(error.param, 'n');
      assert.equal(openai.requests.length, before);
    });

    it('refuses stream on a deployment whose profile lacks sse, and a plain call where it has only sse', async () => {
      await refused('/chat/completions', hi('json-only', { stream: true }), {
        status: 400,
        code: 'unsupported_parameter',
        param: 'stream',
      });
      await refused('/chat/completions', hi('sse-only'), {
        status: 400,
        code: 'unsupported_parameter',
        param: 'stream',
      });
      const streamed = await post(gw, key, '/chat/completions', hi('sse-only', { stream: true }));
      assert.equal(streamed.status, 200);
    });

    it('passes when one deployment of the pool accepts, and routes only to it', async () => {
      for (let i = 0; i < 6; i++) {
        const answer = await post(gw, key, '/images/generations', {
          model: 'pool',
          prompt: 'p',
          size: '512x512',
        });
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.headers.get('x-switchyard-deployment'), wideId);
      }
    });
  });

  describe('unsupported_model_capability', () => {
    it('refuses image parts on a model without vision, naming the part', async () => {
      const body = {
        model: 'old',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is this?' },
              { type: 'image_url', image_url: { url: PNG_DATA_URL } },
            ],
          },
        ],
      };
      await refused('/chat/completions', body, {
        status: 400,
        code: 'unsupported_model_capability',
        param: 'messages.0.content.1',
      });
    });

    it('refuses reasoning_effort on a model without reasoning', async () => {
      await refused('/chat/completions', hi('old', { reasoning_effort: 'low' }), {
        status: 400,
        code: 'unsupported_model_capability',
        param: 'reasoning_effort',
      });
    });

    it('accepts reasoning_effort where the deployment profile declares it', async () => {
      const answer = await post(
        gw,
        key,
        '/chat/completions',
        hi('old-reasoning', { reasoning_effort: 'low' }),
      );
      assert.equal(answer.status, 200, answer.text);
    });

    it('refuses json_schema structured outputs on a model without them (chat and responses)', async () => {
      const format = { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } };
      await refused('/chat/completions', hi('old', { response_format: format }), {
        status: 400,
        code: 'unsupported_model_capability',
        param: 'response_format',
      });
      await refused(
        '/responses',
        {
          model: 'old',
          input: 'hi',
          text: { format: { type: 'json_schema', name: 'x', schema: { type: 'object' } } },
        },
        { status: 400, code: 'unsupported_model_capability', param: 'text.format' },
      );
    });

    it('refuses thinking on a Claude without reasoning, in the Anthropic shape', async () => {
      const before = anthropic.requests.length;
      const answer = await post(gw, key, '/messages', {
        model: 'claude35',
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'think' }],
      });
      assert.equal(answer.status, 400);
      assert.deepEqual(answer.json(), {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'The model does not support reasoning.' },
      });
      assert.equal(anthropic.requests.length, before);
    });

    it('refuses tools on a model without tools (chat and messages)', async () => {
      const tool = { type: 'function', function: { name: 'f', parameters: { type: 'object' } } };
      await refused('/chat/completions', hi('claude2', { tools: [tool] }), {
        status: 400,
        code: 'unsupported_model_capability',
        param: 'tools',
      });
      const before = anthropic.requests.length;
      const answer = await post(gw, key, '/messages', {
        model: 'claude2',
        max_tokens: 10,
        tools: [{ name: 'f', input_schema: { type: 'object' } }],
        messages: [{ role: 'user', content: 'hi' }],
      });
      assert.equal(answer.status, 400);
      assert.equal((answer.json() as { error: { type: string } }).error.type, 'invalid_request_error');
      assert.equal(anthropic.requests.length, before);
    });
  });

  describe('context_length_exceeded', () => {
    it('refuses input beyond the catalog context window (gpt-3.5-turbo: 16,385 tokens)', async () => {
      const long = 'lorem ipsum dolor sit amet '.repeat(5000);
      const body = { model: 'old', messages: [{ role: 'user', content: long }] };
      const error = await refused('/chat/completions', body, {
        status: 400,
        code: 'context_length_exceeded',
        param: 'messages',
      });
      assert.match(error.message, /context window of 16385 tokens/);
      // Counted in slices between turns of the event loop, the estimate is the one counted at once.
      assert.match(
        error.message,
        new RegExp(`about ${estimateInputTokens('chat.completions', body)} tokens`),
      );
    });

    it('serves input whose byte bound exceeds the window but whose count fits it, counted in slices', async () => {
      const long = 'lorem ipsum dolor sit amet '.repeat(2200);
      assert.ok(
        long.length > 16_385 &&
          estimateInputTokens('chat.completions', { messages: [{ role: 'user', content: long }] }) < 16_385,
      );
      const served = await post(gw, key, '/chat/completions', {
        model: 'old',
        messages: [{ role: 'user', content: long }],
      });
      assert.equal(served.status, 200, served.text);
    });

    it('measures each embeddings input on its own', async () => {
      const chunk = 'lorem ipsum dolor sit amet '.repeat(1000);
      const many = await post(gw, key, '/embeddings', {
        model: 'embed',
        input: [chunk, chunk, chunk, chunk],
      });
      assert.equal(many.status, 200, many.text);
      await refused(
        '/embeddings',
        { model: 'embed', input: ['short', chunk.repeat(3)] },
        { status: 400, code: 'context_length_exceeded', param: 'input' },
      );
    });
  });
});
