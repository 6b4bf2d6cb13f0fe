/**
 * The real Claude Code CLI (`claude -p`, installed from npm by agent-cli.ts) on every kind of
 * upstream, through the gateway: a short session in which the model (a fake) calls Claude Code's
 * Bash tool with a real command, Claude Code runs it, sends the output back, and the session
 * ends with the fake's answer quoting it. Each fake asserts what reached it: Claude Code's betas,
 * thinking budget, cache breakpoints and, on Bedrock, the signed thinking sent back in the loop.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Json, Upstreams } from '../inference/support.ts';
import { installedCli, runClaudeCode } from './agent-cli.ts';
import { startAgentUpstreams } from './agent-upstreams.ts';

const MARKER = 'switchyard-e2e-ok';
const PROMPT = `Print the marker: call Bash {"command":"echo ${MARKER}","description":"Print the marker"}`;

describe('Claude Code (claude -p) on every kind of upstream', { timeout: 900_000 }, () => {
  let up: Upstreams;
  before(
    async () => {
      await installedCli('claude');
      up = await startAgentUpstreams();
    },
    { timeout: 900_000 },
  );
  after(() => up?.close());

  /** A session; `quotes`: the fake answers a tool result by quoting it (Anthropic, OpenAI). */
  async function session(model: string, quotes = true): Promise<Json> {
    const outcome = await runClaudeCode({
      gatewayUrl: up.gw.url,
      key: up.key,
      model,
      prompt: PROMPT,
      allowedTools: 'Bash',
    });
    const result = outcome.result;
    assert.ok(
      result,
      `claude printed no JSON result (exit ${outcome.code}): ${outcome.stdout.slice(-800)} ${outcome.stderr.slice(-800)}`,
    );
    assert.equal(result.is_error, false, JSON.stringify(result).slice(0, 800));
    assert.equal(outcome.code, 0);
    assert.ok(Number(result.num_turns) >= 2, 'the tool round trip happened');
    if (quotes) assert.match(String(result.result), new RegExp(`tool result: .*${MARKER}`, 's'));
    return result;
  }

  /** The bodies a fake received, as text, so a test can find what came back. */
  const bodiesOf = (fake: { requests: Array<{ body: unknown }> }) => fake.requests.map((r) => r.body as Json);

  it('Anthropic: the betas, the thinking budget, the cache breakpoints and the signed thinking reach Claude as sent', async () => {
    up.anthropic.reset();
    await session('claude-opus-4-5');
    const requests = up.anthropic.requests;
    assert.ok(requests.length >= 2);
    const first = requests[0];
    assert.match(String(first.headers['anthropic-beta']), /claude-code-20250219/);
    const body = first.body as Json;
    assert.equal((body.thinking as Json).budget_tokens, 31_999);
    assert.match(JSON.stringify(body.system), /"cache_control"/);
    const loop = JSON.stringify(requests.at(-1)?.body);
    assert.match(loop, /"signature":"c2lnbmVkLWZha2U/, 'the signed thinking went back to Claude');
    assert.match(loop, new RegExp(MARKER));
  });

  it('Bedrock Claude (InvokeModel): betas in the body, the exact budget, the signed thinking sent back', async () => {
    up.bedrock.reset();
    await session('bedrock/claude-opus-4-5');
    const invokes = up.bedrock.requests.filter((request) => request.operation?.startsWith('invoke'));
    assert.ok(invokes.length >= 2, `InvokeModel calls: ${invokes.length}`);
    const first = invokes[0].body as Json;
    const betas = first.anthropic_beta as string[];
    assert.ok(
      betas.includes('claude-code-20250219') && betas.includes('tool-search-tool-2025-10-19'),
      String(betas),
    );
    assert.ok(!betas.some((beta) => beta.startsWith('advanced-tool-use-')), 'Bedrock would refuse it');
    assert.equal((first.thinking as Json).budget_tokens, 31_999);
    assert.match(JSON.stringify(first.system), /"cache_control"/);
    const loop = JSON.stringify(invokes.at(-1)?.body);
    assert.match(loop, /"signature":"c2lnbmVkLWZha2U/, 'the signed thinking went back to Claude');
    assert.match(loop, new RegExp(MARKER));
  });

  // The Gemini and Converse fakes answer a tool result with the (empty) last user text: what they
  // received shows the round trip.
  for (const [model, fakeOf, quotes] of [
    ['bedrock/nova-pro', (up: Upstreams) => up.bedrock, false],
    ['gpt', (up: Upstreams) => up.openai, true],
    ['compat', (up: Upstreams) => up.openai, true],
    ['gemini', (up: Upstreams) => up.gemini, false],
  ] as const) {
    it(`${model}: translated, the session completes and the tool output reaches the model`, async () => {
      const fake = fakeOf(up);
      fake.reset();
      await session(model, quotes);
      const bodies = bodiesOf(fake);
      assert.ok(bodies.length >= 2);
      for (const body of bodies) {
        assert.equal(body.context_management, undefined, 'applied by the gateway, not sent');
        assert.equal(body.thinking, undefined);
      }
      assert.match(JSON.stringify(bodies.at(-1)), new RegExp(MARKER));
    });
  }
});
