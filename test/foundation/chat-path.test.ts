import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { sentUpstream } from '../helpers/raw-call.ts';

/** The spine end to end: a deployment in the database, the official client, one OpenAI-format upstream. */
describe('minimal /v1/chat/completions through the pipeline', () => {
  let gw: TestGateway;
  let fake: OpenAIFake;
  let client: OpenAI;
  before(async () => {
    fake = await new OpenAIFake({ apiKey: 'sk-upstream-spine-0001' }).start();
    gw = await startTestGateway();
    const created = await fetch(`${gw.url}/admin/deployments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        publicModel: 'spine',
        provider: 'openai',
        upstreamModel: 'gpt-4o-mini',
        baseUrl: fake.baseUrl,
        apiKey: 'sk-upstream-spine-0001',
      }),
    });
    assert.equal(created.status, 201);
    client = new OpenAI({ apiKey: gw.masterKey, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await gw.close();
    await fake.close();
  });

  it('answers a plain call from the upstream, with the public model and the upstream key', async () => {
    const completion = await client.chat.completions.create({
      model: 'spine',
      messages: [{ role: 'user', content: 'hello spine' }],
    });
    assert.equal(completion.choices[0].message.content, 'echo: hello spine');
    const received = fake.lastRequest;
    assert.ok(received);
    assert.equal((received.body as { model?: string }).model, 'gpt-4o-mini');
    assert.equal(received.headers.authorization, 'Bearer sk-upstream-spine-0001');
  });

  it('streams', async () => {
    const stream = await client.chat.completions.create({
      model: 'spine',
      messages: [{ role: 'user', content: 'stream me please' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    assert.equal(text, 'echo: stream me please');
  });

  it('says which deployment served the call', async () => {
    const { response } = await client.chat.completions
      .create({ model: 'spine', messages: [{ role: 'user', content: 'x' }] })
      .withResponse();
    assert.match(response.headers.get('x-switchyard-deployment') ?? '', /^dep_/);
    assert.ok(response.headers.get('x-request-id'));
  });

  const sendRaw = (body: string | Buffer) => sentUpstream(gw, fake, '/v1/chat/completions', body);

  it("sends the client's own bytes upstream with only the model's value edited", async () => {
    const text =
      '{ "model" : "spine",\n  "messages": [ {"role": "user", "content": "caf\\u00e9 \\"model\\": \\"spine\\""} ],\n  "temperature": 0.50 }';
    const received = await sendRaw(text);
    assert.equal(received.rawBody, text.replace('"spine"', '"gpt-4o-mini"'));
    assert.equal(
      (received.body as { messages: { content: string }[] }).messages[0].content,
      'café "model": "spine"',
    );
  });

  it('re-serialises a body whose top-level model is written with an escape', async () => {
    const received = await sendRaw(
      '{"mod\\u0065l": "spine", "messages": [{"role": "user", "content": "hi"}]}',
    );
    assert.equal((received.body as { model: string }).model, 'gpt-4o-mini');
    assert.equal(received.rawBody, JSON.stringify(received.body));
  });

  it('re-serialises a body that is not valid UTF-8, as the gateway decoded it', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"model": "spine", "messages": [{"role": "user", "content": "a'),
      Buffer.from([0xff]),
      Buffer.from('b"}]}'),
    ]);
    const received = await sendRaw(bytes);
    assert.equal((received.body as { messages: { content: string }[] }).messages[0].content, 'a\ufffdb');
    assert.equal(received.rawBody, JSON.stringify(received.body));
  });
});
