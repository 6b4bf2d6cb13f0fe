import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import { anthropicClient, OPENAI_UPSTREAM_KEY, startUpstreams, type Upstreams } from './support.ts';

/**
 * The headers row of the Messages -> OpenAI column of the conformance matrix (docs/providers.md):
 * Anthropic's request headers are the gateway's to read, never sent to an OpenAI-format upstream,
 * which gets its own Bearer key.
 */
describe('conformance: Messages -> OpenAI headers', () => {
  let up: Upstreams;
  let anthropic: Anthropic;
  before(async () => {
    up = await startUpstreams();
    anthropic = anthropicClient(up.gw, up.key);
  });
  after(() => up?.close());

  it('anthropic-version and anthropic-beta stay at the gateway; the upstream gets its own key', async () => {
    await anthropic.beta.messages.create({
      model: 'gpt',
      max_tokens: 20,
      betas: ['interleaved-thinking-2025-05-14'],
      messages: [{ role: 'user', content: 'hello' }],
    });
    const headers = up.openai.lastRequest?.headers ?? {};
    assert.equal(headers['anthropic-version'], undefined);
    assert.equal(headers['anthropic-beta'], undefined);
    assert.equal(headers['x-api-key'], undefined, "the client's key is not sent on");
    assert.equal(headers.authorization, `Bearer ${OPENAI_UPSTREAM_KEY}`);
  });
});
