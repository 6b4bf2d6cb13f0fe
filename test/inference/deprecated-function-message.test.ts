import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startUpstreams, type Upstreams } from './support.ts';

/**
 * The openapi fuzz (seed 1213820132) found a chat call with a message of OpenAI's deprecated
 * `function` role answered 500 on the Claude route: the translation had no case for the role.
 * Gemini's dropped the message without a word. Claude, Gemini and Bedrock answer tool results by
 * call id, which such a message does not name: it is refused with a 400 that says what to send,
 * on every translated route; OpenAI-format upstreams get it as the client sent it.
 */
describe('a chat message with the deprecated function role', () => {
  let up: Upstreams;

  before(async () => {
    up = await startUpstreams();
  });
  after(() => up.close());

  const chat = (model: string) =>
    fetch(`${up.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${up.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model,
        messages: [
          { role: 'user', content: 'what is the weather?' },
          { role: 'function', name: 'weather', content: 'sunny' },
          { role: 'system', content: '' },
        ],
      }),
    });

  for (const model of ['claude', 'gemini', 'nova']) {
    it(`is refused with 400 unsupported_parameter on ${model}, naming the message, never a 500`, async () => {
      const answer = await chat(model);
      const body = (await answer.json()) as { error: { code: string; param: string; message: string } };
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(body.error.code, 'unsupported_parameter');
      assert.equal(body.error.param, 'messages[1].role');
      assert.match(body.error.message, /'tool' message/);
    });
  }

  it('reaches an OpenAI-format upstream as sent', async () => {
    const answer = await chat('gpt');
    assert.equal(answer.status, 200, await answer.clone().text());
    await answer.arrayBuffer();
    const sent = up.openai.lastRequest?.body as { messages: { role: string; name?: string }[] };
    assert.deepEqual(sent.messages[1], { role: 'function', name: 'weather', content: 'sunny' });
  });
});
