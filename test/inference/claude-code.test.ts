import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  createDeployment,
  type Json,
  lastJson,
  OPENAI_UPSTREAM_KEY,
  post,
  startUpstreams,
  type Upstreams,
} from './support.ts';

/**
 * Claude Code (`claude -p`) on every kind of deployment, through the HTTP surface, with the first
 * request the real CLI sent (fixtures/claude-code-first-turn.json, captured from Claude Code
 * 2.1.332 and trimmed): its betas, `context_management`, `thinking` with a 31,999 budget,
 * `max_tokens: 32000`, a deferred tool (`defer_loading`), `cache_control` on system and messages.
 */
const CAPTURED = JSON.parse(
  readFileSync(new URL('./fixtures/claude-code-first-turn.json', import.meta.url), 'utf8'),
) as { 'anthropic-beta': string; body: Json };
const HEADERS = { 'anthropic-beta': CAPTURED['anthropic-beta'], 'anthropic-version': '2023-06-01' };

function claudeCodeBody(model: string, extra: Json = {}): Json {
  return { ...CAPTURED.body, model, ...extra };
}

/** The data of each SSE event of a streamed answer. */
function sseData(text: string): Json[] {
  return text
    .split('\n\n')
    .map((frame) => frame.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice('data: '.length)) as Json);
}

/** A second turn after a `Read` call: the call, its result, and the next user text. */
function toolLoop(calls: number): Json[] {
  const first = (CAPTURED.body.messages as Json[])[0];
  const messages: Json[] = [first];
  for (let i = 0; i < calls; i++) {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Read', input: { file_path: `/f${i}` } }],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: `contents of f${i}` }],
    });
  }
  return messages;
}

describe('Claude Code on every route', () => {
  let up: Upstreams;
  before(async () => {
    up = await startUpstreams();
    // Reasoning models: Claude Code asks for thinking (budget 31,999) when its model is a Claude.
    const openai = { baseUrl: up.openai.baseUrl, apiKey: OPENAI_UPSTREAM_KEY, upstreamModel: 'gpt-5' };
    await createDeployment(up.gw, { publicModel: 'cc-chat', provider: 'openai-compatible', ...openai });
    await createDeployment(up.gw, { publicModel: 'cc-openai', provider: 'openai', ...openai });
    await createDeployment(up.gw, {
      publicModel: 'cc-bedrock',
      provider: 'bedrock',
      upstreamModel: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      baseUrl: up.bedrock.baseUrl,
      apiKey: up.bedrock.apiKey,
      providerOptions: { region: up.bedrock.region },
    });
  });
  beforeEach(() => {
    up.openai.reset();
    up.anthropic.reset();
  });
  after(() => up?.close());

  for (const model of ['cc-chat', 'cc-openai', 'gemini']) {
    it(`${model}: the first turn is served, streamed, with the input estimate in message_start`, async () => {
      const answer = await post(up.gw, up.key, '/messages', claudeCodeBody(model), HEADERS);
      assert.equal(answer.status, 200, answer.text);
      const events = sseData(answer.text);
      const start = events.find((event) => event.type === 'message_start');
      const usage = (start?.message as Json | undefined)?.usage as Json | undefined;
      assert.ok(
        Number(usage?.input_tokens) > 1000,
        `message_start estimates the input: ${JSON.stringify(usage)}`,
      );
      assert.equal(events.at(-1)?.type, 'message_stop');
    });
  }

  it('Chat upstream: context_management applied, max_tokens clamped, deferred tools held back, betas not sent', async () => {
    // Claude Code sends no `thinking` to a model it does not know as a Claude (gpt-4o-mini reasons not).
    const { thinking: _none, ...body0 } = claudeCodeBody('compat');
    const body = {
      ...body0,
      messages: toolLoop(4),
      context_management: {
        edits: [
          { type: 'clear_thinking_20251015', keep: 'all' },
          {
            type: 'clear_tool_uses_20250919',
            trigger: { type: 'tool_uses', value: 3 },
            keep: { type: 'tool_uses', value: 1 },
          },
        ],
      },
    };
    const answer = await post(up.gw, up.key, '/messages', body, HEADERS);
    assert.equal(answer.status, 200, answer.text);
    const sent = lastJson(up.openai);
    assert.equal(sent.context_management, undefined);
    assert.equal(sent.max_completion_tokens, 16_384, "gpt-4o-mini's output limit, not Claude Code's 32,000");
    const tools = (sent.tools as Json[]).map((tool) => (tool.function as Json).name);
    assert.ok(tools.includes('Bash') && !tools.includes('DeferredToolPlaceholder'), String(tools));
    const results = (sent.messages as Json[])
      .filter((message) => message.role === 'tool')
      .map((m) => m.content);
    assert.equal(results.length, 4);
    assert.match(String(results[0]), /cleared/);
    assert.match(String(results[2]), /cleared/);
    assert.equal(results[3], 'contents of f3');
    assert.equal(up.openai.lastRequest?.headers['anthropic-beta'], undefined);
  });

  it('Bedrock Claude: InvokeModel with the body and betas as sent; thinking and its signature come back', async () => {
    const answer = await post(up.gw, up.key, '/messages', claudeCodeBody('cc-bedrock'), HEADERS);
    assert.equal(answer.status, 200, answer.text);
    const request = up.bedrock.lastRequest;
    assert.equal(request?.operation, 'invoke-with-response-stream');
    const sent = request?.body as Json;
    assert.equal(sent.anthropic_version, 'bedrock-2023-05-31');
    // Bedrock refuses a whole call naming a beta it lacks: Claude Code's are kept where Bedrock has them.
    assert.deepEqual(sent.anthropic_beta, [
      'claude-code-20250219',
      'interleaved-thinking-2025-05-14',
      'context-management-2025-06-27',
      'tool-search-tool-2025-10-19',
    ]);
    assert.deepEqual(sent.thinking, CAPTURED.body.thinking, 'the exact budget, 31,999');
    assert.deepEqual(sent.context_management, CAPTURED.body.context_management);
    assert.equal(sent.max_tokens, 32_000);
    // Claude Code's first-party attribution line, which Bedrock refuses as a reserved keyword.
    assert.equal((sent.system as Json[]).length, (CAPTURED.body.system as Json[]).length - 1);
    assert.ok(!JSON.stringify(sent.system).includes('x-anthropic-billing-header'));
    const events = sseData(answer.text);
    const signature = events.find((event) => (event.delta as Json | undefined)?.type === 'signature_delta');
    assert.ok(signature, 'the signed thinking reaches Claude Code');
    assert.equal(events.at(-1)?.type, 'message_stop');
    assert.ok(!answer.text.includes('amazon-bedrock-invocationMetrics'));
  });

  it('Anthropic upstream: the body and betas reach Claude as sent', async () => {
    const answer = await post(up.gw, up.key, '/messages', claudeCodeBody('claude'), HEADERS);
    assert.equal(answer.status, 200, answer.text);
    const sent = lastJson(up.anthropic);
    assert.deepEqual(sent.context_management, CAPTURED.body.context_management);
    assert.deepEqual(sent.thinking, CAPTURED.body.thinking);
    assert.equal(up.anthropic.lastRequest?.headers['anthropic-beta'], CAPTURED['anthropic-beta']);
  });
});
