import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { sqlOn, type TestSql } from '../helpers/sql.ts';
import {
  createKey,
  type Json,
  lastJson,
  openaiClient,
  rejection,
  startUpstreams,
  type Upstreams,
} from './support.ts';

type Response = OpenAI.Responses.Response;
type ApiError = InstanceType<typeof OpenAI.APIError>;

/** The text of a message's content: a string, or its text parts joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('');
}

/** The answer's text, from its output items (a streamed response object has no `output_text`). */
function answerText(response: Response): string {
  return response.output.map((item) => (item.type === 'message' ? textOf(item.content) : '')).join('');
}

/** The turns an upstream was sent, as text: Responses `input` items or Messages `messages`. */
function turnsOf(items: unknown): string[] {
  return (items as Json[]).map((item) => `${String(item.role)}: ${textOf(item.content)}`);
}

const WHOLE_CONVERSATION = [
  'user: first turn',
  'assistant: echo: first turn',
  'user: second turn',
  'assistant: echo: second turn',
  'user: third turn',
];

/** A create call, streamed or not; a stream is read to its `response.completed` event. */
async function create(
  client: OpenAI,
  params: OpenAI.Responses.ResponseCreateParamsNonStreaming,
  stream: boolean,
): Promise<Response> {
  if (!stream) return client.responses.create(params);
  let completed: Response | null = null;
  const events = await client.responses.create({ ...params, stream: true });
  for await (const event of events) {
    if (event.type === 'response.created') assert.equal(event.response.id.startsWith('resp_'), true);
    if (event.type === 'response.completed') completed = event.response;
  }
  assert.ok(completed !== null, 'the stream completed');
  return completed;
}

/** Three turns, each continuing the previous one by id; the last one under new instructions. */
async function threeTurns(client: OpenAI, model: string, stream: boolean): Promise<Response[]> {
  const first = await create(client, { model, instructions: 'Be brief.', input: 'first turn' }, stream);
  const second = await create(
    client,
    { model, previous_response_id: first.id, input: 'second turn' },
    stream,
  );
  const third = await create(
    client,
    { model, previous_response_id: second.id, instructions: 'New rules.', input: 'third turn' },
    stream,
  );
  return [first, second, third];
}

describe('stored Responses state (variant B)', () => {
  let up: Upstreams;
  let client: OpenAI;
  let otherKey: string;
  let sql: TestSql;
  before(async () => {
    up = await startUpstreams();
    client = openaiClient(up.gw, up.key);
    otherKey = await createKey(up.gw);
    sql = sqlOn(up.gw.gateway.runtime.database.background);
  });
  after(() => up?.close());

  for (const stream of [false, true]) {
    const how = stream ? 'streamed' : 'plain';

    it(`continues a three-turn ${how} conversation on an OpenAI deployment, calling it statelessly`, async () => {
      const [first, second, third] = await threeTurns(client, 'gpt', stream);
      assert.equal(answerText(third), 'echo: third turn');
      assert.equal(third.previous_response_id, second.id);
      assert.equal((first as { store?: boolean }).store, true);
      assert.notEqual(first.id, second.id);
      const sent = lastJson(up.openai);
      assert.equal(sent.store, false);
      assert.equal('previous_response_id' in sent, false);
      assert.equal(sent.instructions, 'New rules.');
      assert.deepEqual(turnsOf(sent.input), WHOLE_CONVERSATION);
    });

    it(`continues a three-turn ${how} conversation on an Anthropic deployment`, async () => {
      const [, second, third] = await threeTurns(client, 'claude', stream);
      assert.equal(answerText(third), 'echo: third turn');
      assert.equal(third.previous_response_id, second.id);
      const sent = lastJson(up.anthropic);
      // The first turn's instructions are not carried over: only the third turn's are the system prompt.
      assert.equal(textOf(sent.system), 'New rules.');
      assert.deepEqual(turnsOf(sent.messages), WHOLE_CONVERSATION);
    });
  }

  for (const model of ['compat', 'gemini', 'nova']) {
    it(`continues a conversation through the translated ${model} deployment`, async () => {
      const first = await client.responses.create({ model, input: 'first turn' });
      const second = await client.responses.create({
        model,
        previous_response_id: first.id,
        input: 'second turn',
      });
      assert.equal(second.output_text, 'echo: second turn');
    });
  }

  it('carries a conversation across providers: started on Claude, continued on OpenAI', async () => {
    const first = await client.responses.create({ model: 'claude', input: 'first turn' });
    await client.responses.create({ model: 'gpt', previous_response_id: first.id, input: 'second turn' });
    assert.deepEqual(turnsOf(lastJson(up.openai).input), WHOLE_CONVERSATION.slice(0, 3));
  });

  it('finds the state of a streamed answer the moment its last event arrived', async () => {
    const events = await client.responses.create({ model: 'gpt', input: 'first turn', stream: true });
    let followUp: Promise<Response> | null = null;
    for await (const event of events) {
      // Sent before the client has even seen the end of the stream.
      if (event.type === 'response.completed') {
        followUp = client.responses.create({
          model: 'claude',
          previous_response_id: event.response.id,
          input: 'second turn',
        });
      }
    }
    assert.ok(followUp !== null);
    assert.equal((await followUp).output_text, 'echo: second turn');
  });

  it('serves a stored response and its input items, paginated in OpenAI list shape', async () => {
    const first = await client.responses.create({ model: 'gpt', input: 'first turn' });
    const second = await client.responses.create({
      model: 'gpt',
      previous_response_id: first.id,
      input: 'second turn',
    });
    const read = await client.responses.retrieve(second.id);
    assert.equal(read.id, second.id);
    assert.equal(read.output_text, 'echo: second turn');

    const page = await client.responses.inputItems.list(second.id, { limit: 2, order: 'asc' });
    assert.equal(page.data.length, 2);
    assert.equal(page.has_more, true);
    const all: string[] = [];
    for await (const item of client.responses.inputItems.list(second.id, { limit: 2, order: 'asc' })) {
      assert.equal(typeof item.id, 'string');
      all.push(`${String((item as unknown as Json).role)}: ${textOf((item as unknown as Json).content)}`);
    }
    assert.deepEqual(all, WHOLE_CONVERSATION.slice(0, 3));
    const newestFirst = await client.responses.inputItems.list(second.id);
    assert.equal(textOf((newestFirst.data[0] as unknown as Json).content), 'second turn');
  });

  it('lets a key read, continue and delete only its own responses; the master key sees all', async () => {
    const mine = await client.responses.create({ model: 'gpt', input: 'first turn' });
    const other = openaiClient(up.gw, otherKey);
    const read = await rejection<ApiError>(other.responses.retrieve(mine.id));
    assert.equal(read.status, 404);
    const items = await rejection<ApiError>(other.responses.inputItems.list(mine.id));
    assert.equal(items.status, 404);
    const continued = await rejection<ApiError>(
      other.responses.create({ model: 'gpt', previous_response_id: mine.id, input: 'steal' }),
    );
    assert.equal(continued.status, 404);
    assert.equal(continued.param, 'previous_response_id');
    const removed = await rejection<ApiError>(other.responses.delete(mine.id));
    assert.equal(removed.status, 404);

    const master = openaiClient(up.gw, up.gw.masterKey);
    assert.equal((await master.responses.retrieve(mine.id)).id, mine.id);
    assert.equal((await client.responses.retrieve(mine.id)).id, mine.id, 'still there for its owner');
  });

  it('deletes a response early: it can then be neither read nor continued', async () => {
    const response = await client.responses.create({ model: 'gpt', input: 'first turn' });
    const res = await fetch(`${up.gw.url}/v1/responses/${response.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${up.key}` },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { id: response.id, object: 'response', deleted: true });
    assert.equal((await rejection<ApiError>(client.responses.retrieve(response.id))).status, 404);
    const continued = await rejection<ApiError>(
      client.responses.create({ model: 'claude', previous_response_id: response.id, input: 'more' }),
    );
    assert.equal(continued.status, 404);
    assert.equal(continued.code, 'previous_response_not_found');
    assert.equal((await rejection<ApiError>(client.responses.delete(response.id))).status, 404, 'idempotent');
  });

  it('stores nothing for store: false, and still continues from a stored response', async () => {
    const stored = await client.responses.create({ model: 'gpt', input: 'first turn' });
    const unstored = await client.responses.create({
      model: 'gpt',
      input: 'second turn',
      previous_response_id: stored.id,
      store: false,
    });
    assert.equal((unstored as { store?: boolean }).store, false);
    assert.equal(unstored.previous_response_id, stored.id);
    assert.deepEqual(turnsOf(lastJson(up.openai).input), WHOLE_CONVERSATION.slice(0, 3));
    assert.equal((await rejection<ApiError>(client.responses.retrieve(unstored.id))).status, 404);
  });

  it('keeps the state sealed at rest, and no stored content in the logs', async () => {
    const marker = `secret-marker-${Date.now()}`;
    const response = await client.responses.create({ model: 'gpt', input: marker });
    const [row] =
      await sql`select content, envelope, envelope_key_id from response_states where id = ${response.id}`;
    assert.equal(row.content, null);
    assert.equal(row.envelope_key_id, 'k1');
    assert.match(row.envelope, /^sy1:k1:responses-state:/);
    assert.equal(String(row.envelope).includes(marker), false);
    assert.equal(
      up.gw.logs.some((line) => line.includes(marker)),
      false,
    );
  });
});
