/**
 * Errors the coding agents recover from (issue 31): an overload from any provider reaches
 * Anthropic clients as 529 `overloaded_error` (Claude Code backs off and retries) and others as
 * 503 `upstream_overloaded`; Anthropic's "input length and `max_tokens` exceed context limit"
 * keeps its numbers (Claude Code lowers `max_tokens` instead of compacting); a `context-1m-*` beta
 * lifts the pre-flight window to Claude's 1M.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { AnthropicFake } from '../fakes/anthropic-fake.ts';
import { recordedReply } from '../fakes/recorded.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import {
  ANTHROPIC_UPSTREAM_KEY,
  answerFirstFailure,
  anthropicClient,
  createDeployment,
  createKey,
  openaiClient,
  rejection,
  startUpstreams,
  type Upstreams,
} from './support.ts';

const USER = [{ role: 'user' as const, content: 'one two three four five' }];
const EXCEEDS = 'anthropic-400-input-and-max-tokens-exceed-context-limit.http';
const AWS_UNAVAILABLE = {
  status: 503,
  body: { message: 'Bedrock is unable to process your request.' },
  headers: {
    'x-amzn-errortype': 'ServiceUnavailableException:http://internal.amazon.com/coral/com.amazon.bedrock/',
  },
};

function anthropicError(error: unknown): { status: number; type: string; message: string } {
  assert.ok(error instanceof Anthropic.APIError, String(error));
  const body = error.error as { error: { type: string; message: string } };
  return { status: error.status ?? 0, ...body.error };
}

describe('overloads from every provider', () => {
  let up: Upstreams;
  let anthropic: Anthropic;
  let openai: OpenAI;
  before(async () => {
    up = await startUpstreams();
    await createDeployment(up.gw, {
      publicModel: 'bedrock-claude',
      provider: 'bedrock',
      upstreamModel: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
      baseUrl: up.bedrock.baseUrl,
      apiKey: up.bedrock.apiKey,
      providerOptions: { region: up.bedrock.region },
    });
    await answerFirstFailure(up.gw);
    anthropic = anthropicClient(up.gw, up.key);
    openai = openaiClient(up.gw, up.key);
  });
  after(() => up?.close());

  const cases: Array<[string, string, (up: Upstreams) => void]> = [
    [
      'OpenAI 503',
      'gpt',
      (up) =>
        up.openai.failNext(2, {
          status: 503,
          body: {
            error: {
              message: 'The engine is currently overloaded, please try again later',
              type: 'server_error',
              param: null,
              code: null,
            },
          },
        }),
    ],
    [
      'Gemini UNAVAILABLE',
      'gemini',
      (up) =>
        up.gemini.failNext(2, {
          status: 503,
          body: {
            error: {
              code: 503,
              message: 'The model is overloaded. Please try again later.',
              status: 'UNAVAILABLE',
            },
          },
        }),
    ],
    [
      'Bedrock ServiceUnavailableException (Converse)',
      'nova',
      (up) => up.bedrock.failNext(2, AWS_UNAVAILABLE),
    ],
    [
      'Bedrock ServiceUnavailableException (InvokeModel)',
      'bedrock-claude',
      (up) => up.bedrock.failNext(2, AWS_UNAVAILABLE),
    ],
  ];
  for (const [name, model, inject] of cases) {
    it(`${name}: Anthropic clients get 529 overloaded_error, OpenAI clients 503 upstream_overloaded`, async () => {
      inject(up);
      const viaAnthropic = anthropicError(
        await rejection(anthropic.messages.create({ model, max_tokens: 20, messages: USER })),
      );
      assert.deepEqual([viaAnthropic.status, viaAnthropic.type], [529, 'overloaded_error']);
      const viaOpenAI = await rejection(openai.chat.completions.create({ model, messages: USER }));
      assert.ok(viaOpenAI instanceof OpenAI.APIError);
      assert.deepEqual([viaOpenAI.status, viaOpenAI.code], [503, 'upstream_overloaded']);
    });
  }
});

describe('context limits Claude Code acts on', () => {
  let fake: AnthropicFake;
  const gateways: TestGateway[] = [];
  before(async () => {
    fake = await new AnthropicFake({ apiKey: ANTHROPIC_UPSTREAM_KEY }).start();
  });
  after(async () => {
    await Promise.all(gateways.map((gw) => gw.close()));
    await fake?.close();
  });

  async function gateway(messages: 'generic' | 'passthrough'): Promise<Anthropic> {
    const gw = await startTestGateway({ redis: false, env: { UPSTREAM_ERROR_MESSAGES: messages } });
    gateways.push(gw);
    await createDeployment(gw, {
      publicModel: 'claude',
      provider: 'anthropic',
      upstreamModel: 'claude-sonnet-4-5',
      baseUrl: fake.url,
      apiKey: ANTHROPIC_UPSTREAM_KEY,
    });
    await createDeployment(gw, {
      publicModel: 'claude-1m',
      provider: 'anthropic',
      upstreamModel: 'claude-sonnet-4-5',
      baseUrl: fake.url,
      apiKey: ANTHROPIC_UPSTREAM_KEY,
      providerOptions: { betas: ['context-1m-2025-08-07'] },
    });
    await answerFirstFailure(gw);
    return anthropicClient(gw, await createKey(gw));
  }

  for (const messages of ['generic', 'passthrough'] as const) {
    it(`${EXCEEDS} keeps its numbers (UPSTREAM_ERROR_MESSAGES=${messages})`, async () => {
      const client = await gateway(messages);
      fake.enqueue(recordedReply('anthropic', EXCEEDS));
      const error = anthropicError(
        await rejection(client.messages.create({ model: 'claude', max_tokens: 21_333, messages: USER })),
      );
      assert.equal(error.status, 400);
      assert.equal(
        error.message,
        'input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again',
      );
    });
  }

  it('a context-1m beta, from the client or the deployment, lifts the pre-flight window to 1M', async () => {
    const client = await gateway('generic');
    const long = [{ role: 'user' as const, content: 'hello '.repeat(230_000) }];
    const refused = anthropicError(
      await rejection(client.messages.create({ model: 'claude', max_tokens: 20, messages: long })),
    );
    assert.match(refused.message, /^prompt is too long: \d+ tokens > 200000 maximum$/);
    const requestsBefore = fake.requests.length;
    const served = await client.beta.messages.create({
      model: 'claude',
      max_tokens: 20,
      betas: ['context-1m-2025-08-07'],
      messages: long,
    });
    assert.equal(served.type, 'message');
    assert.equal(fake.requests.length, requestsBefore + 1);
    assert.match(String(fake.lastRequest?.headers['anthropic-beta']), /context-1m-2025-08-07/);
    const byDeployment = await client.messages.create({ model: 'claude-1m', max_tokens: 20, messages: long });
    assert.equal(byDeployment.type, 'message');
  });
});
