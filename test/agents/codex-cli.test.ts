/**
 * The real Codex CLI (`codex exec`, installed from npm by agent-cli.ts) on every kind of
 * upstream, through the gateway's Responses endpoint: a short session in which the model (a fake)
 * calls Codex's `exec_command` tool with a real command, Codex runs it, sends the output back as a
 * `function_call_output`, and the session ends with the fake's answer quoting it. Each fake
 * asserts what reached it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Json, Upstreams } from '../inference/support.ts';
import { installedCli, runCodex } from './agent-cli.ts';
import { startAgentUpstreams } from './agent-upstreams.ts';

const MARKER = 'switchyard-e2e-ok';
const PROMPT = `Print the marker: call exec_command {"cmd":"echo ${MARKER}"}`;

describe('Codex (codex exec) on every kind of upstream', { timeout: 900_000 }, () => {
  let up: Upstreams;
  before(
    async () => {
      await installedCli('codex');
      up = await startAgentUpstreams();
    },
    { timeout: 900_000 },
  );
  after(() => up?.close());

  /** A session; `quotes`: the fake answers a tool result by quoting it (Anthropic, OpenAI). */
  async function session(model: string, quotes = true): Promise<void> {
    // Codex knows no Claude model: its thinking is asked for in config.toml (docs/clients.md).
    const reasoningEffort = model.includes('claude') ? 'medium' : undefined;
    const outcome = await runCodex({
      gatewayUrl: up.gw.url,
      key: up.key,
      model,
      prompt: PROMPT,
      reasoningEffort,
    });
    const said = `exit ${outcome.code}: ${outcome.stdout.slice(-1500)}\n${outcome.stderr.slice(-1500)}`;
    assert.equal(outcome.code, 0, said);
    if (quotes) assert.match(outcome.lastMessage, new RegExp(`tool result: .*${MARKER}`, 's'), said);
  }

  const bodiesOf = (fake: { requests: Array<{ body: unknown }> }) => fake.requests.map((r) => r.body as Json);

  it('OpenAI Responses (native): the reasoning item Codex echoes back (content null) passes; its fields reach OpenAI', async () => {
    up.openai.reset();
    await session('gpt');
    const bodies = bodiesOf(up.openai).filter((body) => body.input !== undefined);
    assert.ok(bodies.length >= 2);
    assert.equal(bodies[0].store, false);
    assert.ok(bodies[0].client_metadata !== undefined);
    const input = bodies.at(-1)?.input as Json[];
    const reasoning = input.find((item) => item.type === 'reasoning');
    assert.ok(reasoning, 'the second turn carries the reasoning item back');
    assert.match(String(reasoning.encrypted_content), /^gAAAAfake/);
    const output = input.find((item) => item.type === 'function_call_output');
    assert.match(String(output?.output), new RegExp(MARKER));
  });

  // The Gemini and Converse fakes answer a tool result with the (empty) last user text: what they
  // received shows the round trip.
  for (const [model, fakeOf, marker, quotes] of [
    ['compat', (up: Upstreams) => up.openai, /"role":"tool"/, true],
    ['claude', (up: Upstreams) => up.anthropic, /"tool_result"/, true],
    ['bedrock/claude-opus-4-5', (up: Upstreams) => up.bedrock, /"tool_result"/, true],
    ['bedrock/nova-pro', (up: Upstreams) => up.bedrock, /"toolResult"/, false],
    ['gemini', (up: Upstreams) => up.gemini, /"functionResponse"/, false],
  ] as const) {
    it(`${model}: translated, the session completes and the command's output reaches the model`, async () => {
      const fake = fakeOf(up);
      fake.reset();
      await session(model, quotes);
      const bodies = bodiesOf(fake);
      assert.ok(bodies.length >= 2);
      for (const body of bodies)
        assert.equal(body.client_metadata, undefined, 'Codex’s labels stay at the gateway');
      const last = JSON.stringify(bodies.at(-1));
      assert.match(last, marker);
      if (model.includes('claude')) {
        // The cache breakpoints the gateway adds for a client that marks none; the thinking budget
        // for Codex's effort, and Claude's signed thinking, carried in the reasoning item's
        // encrypted_content that Codex echoes back.
        assert.match(last, /"cache_control"/);
        assert.match(last, /"budget_tokens":8192/);
        assert.match(last, /"signature":"c2lnbmVkLWZha2U/, 'the signed thinking went back to Claude');
      }
      assert.match(last, new RegExp(MARKER));
    });
  }
});
