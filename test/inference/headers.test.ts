import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { formatSseEvent } from '../../src/formats/sse.ts';
import { post, startUpstreams, type Upstreams } from './support.ts';

/** Headers an upstream (or a proxy before it) may send that must never reach a client. */
const LEAKY_HEADERS = {
  authorization: 'Bearer sk-upstream-leak',
  'x-api-key': 'sk-ant-leak',
  'api-key': 'azure-leak',
  'set-cookie': 'session=leak; Path=/',
  'openai-organization': 'org-leak',
  'openai-project': 'proj_leak',
  'x-request-id': 'req_upstream_leak',
};

function assertNoLeak(headers: Headers): void {
  for (const name of Object.keys(LEAKY_HEADERS)) {
    if (name === 'x-request-id') continue;
    assert.equal(headers.get(name), null, `${name} reached the client`);
  }
  for (const [name, value] of headers) assert.ok(!value.includes('leak'), `${name}: ${value}`);
  assert.ok(headers.get('x-request-id'), 'the gateway sets its own x-request-id');
}

const COMPLETION = {
  id: 'chatcmpl-leak',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'gpt-4o-mini',
  choices: [
    { index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop', logprobs: null },
  ],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
};

/** The gateway writes its own answer headers; nothing of the upstream's answer headers is copied. */
describe('upstream answer headers never reach the client', () => {
  let up: Upstreams;
  before(async () => {
    up = await startUpstreams();
  });
  beforeEach(() => up.openai.reset());
  after(() => up?.close());

  it('on a JSON answer, naming the public model, not the upstream one', async () => {
    up.openai.enqueue({ status: 200, body: COMPLETION, headers: LEAKY_HEADERS });
    const answer = await post(up.gw, up.key, '/chat/completions', {
      model: 'gpt',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(answer.status, 200);
    assertNoLeak(answer.headers);
    assert.equal(answer.json().model, 'gpt');
    assert.ok(!answer.text.includes('gpt-4o-mini'));
  });

  it('on a stream', async () => {
    const chunk = {
      ...COMPLETION,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { content: 'hi' } }],
    };
    up.openai.enqueue({
      status: 200,
      body: formatSseEvent({ data: chunk }) + formatSseEvent({ data: '[DONE]' }),
      headers: { ...LEAKY_HEADERS, 'content-type': 'text/event-stream' },
    });
    const answer = await post(up.gw, up.key, '/chat/completions', {
      model: 'gpt',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    assert.equal(answer.status, 200);
    assert.ok(answer.headers.get('content-type')?.startsWith('text/event-stream'));
    assertNoLeak(answer.headers);
    assert.ok(!answer.text.includes('gpt-4o-mini'));
  });

  it('on an error', async () => {
    up.openai.enqueue({
      status: 400,
      body: { error: { message: 'bad', type: 'invalid_request_error', param: null, code: null } },
      headers: LEAKY_HEADERS,
    });
    const answer = await post(up.gw, up.key, '/chat/completions', {
      model: 'gpt',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(answer.status, 400);
    assertNoLeak(answer.headers);
  });

  it('on a text answer, of which only the content type is kept', async () => {
    up.openai.enqueue({
      status: 200,
      body: 'plain transcript\n',
      headers: { ...LEAKY_HEADERS, 'content-type': 'text/plain; charset=utf-8' },
    });
    const form = new FormData();
    form.append('model', 'whisper');
    form.append('response_format', 'text');
    form.append('file', new Blob([Buffer.from('audio')]), 'a.wav');
    const answer = await post(up.gw, up.key, '/audio/transcriptions', form);
    assert.equal(answer.status, 200);
    assert.equal(answer.text, 'plain transcript\n');
    assert.equal(answer.headers.get('content-type'), 'text/plain; charset=utf-8');
    assertNoLeak(answer.headers);
  });
});
