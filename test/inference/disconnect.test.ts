import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { admin } from '../helpers/admin-api.ts';
import { post, startUpstreams, type Upstreams } from './support.ts';

/** Resolves with `promise`, or fails the test after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A client that goes away cancels the upstream call (DESIGN.md section 4): the request's abort
 * signal reaches undici, which drops the upstream connection; the fake counts it as aborted. Once
 * a stream has begun, the upstream is first read on for `timeouts.drainAfterClientLeftMs`, so that
 * its usage is billed (issue 19; test/limits/stream-billing.test.ts): here that bound is short and
 * the streams longer, so they are cut at it.
 */
describe('client disconnect aborts the upstream call', () => {
  let up: Upstreams;
  before(async () => {
    up = await startUpstreams();
    await admin(up.gw, 'PUT', '/router-settings', { timeouts: { drainAfterClientLeftMs: 300 } });
  });
  beforeEach(() => {
    up.openai.reset();
    up.anthropic.reset();
  });
  after(() => up?.close());

  /** Starts a streamed call, reads its first bytes, then drops the connection. */
  async function streamThenLeave(path: string, body: Record<string, unknown>): Promise<string> {
    const controller = new AbortController();
    const response = await fetch(`${up.gw.url}/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${up.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
      signal: controller.signal,
    });
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    const first = await reader.read();
    controller.abort();
    await reader.cancel().catch(() => {});
    return new TextDecoder().decode(first.value);
  }

  const longPrompt = 'one two three four five six seven eight nine ten eleven twelve';

  it('mid-stream, on a native OpenAI-format stream', async () => {
    up.openai.eventDelayMs = 200;
    const first = await streamThenLeave('/chat/completions', {
      model: 'gpt',
      messages: [{ role: 'user', content: longPrompt }],
    });
    assert.match(first, /^data: /);
    await within(up.openai.waitForAbort(1), 5_000, 'the upstream abort');
    assert.equal(up.openai.aborted, 1);
  });

  it('mid-stream, on a translated stream (chat client, Anthropic upstream)', async () => {
    up.anthropic.eventDelayMs = 200;
    await streamThenLeave('/chat/completions', {
      model: 'claude',
      max_tokens: 50,
      messages: [{ role: 'user', content: longPrompt }],
    });
    await within(up.anthropic.waitForAbort(1), 5_000, 'the upstream abort');
    assert.equal(up.anthropic.aborted, 1);
  });

  it('mid-stream, on a Messages client served by an OpenAI-format upstream', async () => {
    up.openai.eventDelayMs = 200;
    const first = await streamThenLeave('/messages', {
      model: 'gpt',
      max_tokens: 50,
      messages: [{ role: 'user', content: longPrompt }],
    });
    assert.match(first, /^event: message_start/);
    await within(up.openai.waitForAbort(1), 5_000, 'the upstream abort');
  });

  it('before the answer of a plain call', async () => {
    up.openai.latencyMs = 2_000;
    const controller = new AbortController();
    const call = fetch(`${up.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${up.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'slow' }] }),
      signal: controller.signal,
    });
    await within(
      (async () => {
        while (up.openai.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      })(),
      5_000,
      'the upstream call',
    );
    controller.abort();
    await assert.rejects(call);
    await within(up.openai.waitForAbort(1), 5_000, 'the upstream abort');
  });

  it('leaves the gateway serving the next call', async () => {
    const answer = await post(up.gw, up.key, '/chat/completions', {
      model: 'gpt',
      messages: [{ role: 'user', content: 'still there?' }],
    });
    assert.equal(answer.status, 200);
  });
});
