import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { ContentFilterHit } from '../../src/formats/content-filter.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import type { AzureFilterVerdict } from '../fakes/openai-fake-azure.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import type { TestSql } from '../helpers/sql.ts';
import { anthropicClient, openaiClient } from '../inference/support.ts';
import { admin, connect, createDeployment, createKey, eventually, operationOf } from './support.ts';

const AZURE_KEY = 'azure-upstream-key-0001';
const SECRET_PROMPT = 'the filtered prompt text 7Qx';

/** The fake's filter: a prompt naming a category is stopped on it (a detector has no severity). */
function verdictFor(body: Record<string, unknown>): AzureFilterVerdict | null {
  const prompt = JSON.stringify(body.messages);
  if (prompt.includes('[violence]')) return { category: 'violence', severity: 'medium' };
  if (prompt.includes('[protected]')) return { category: 'protected_material_text' };
  return null;
}

const VIOLENCE: ContentFilterHit[] = [
  { source: 'completion', index: 0, category: 'violence', severity: 'medium' },
];
const PROTECTED: ContentFilterHit[] = [
  { source: 'completion', index: 0, category: 'protected_material_text' },
];

interface LogItem {
  status: string;
  contentFilter: ContentFilterHit[] | null;
}

/** Two Azure deployments on fakes speaking Azure: `azure-sync` (the default filter), `azure-async`. */
async function azureFakes(): Promise<{ sync: OpenAIFake; async: OpenAIFake }> {
  const [sync, async] = await Promise.all([
    new OpenAIFake({ apiKey: AZURE_KEY, azureFilterVerdict: verdictFor }).start(),
    new OpenAIFake({
      apiKey: AZURE_KEY,
      azureContentFilter: 'asynchronous',
      azureFilterVerdict: verdictFor,
    }).start(),
  ]);
  return { sync, async };
}

async function azureDeployments(gw: TestGateway, fakes: { sync: OpenAIFake; async: OpenAIFake }) {
  for (const [publicModel, fake] of [
    ['azure-sync', fakes.sync],
    ['azure-async', fakes.async],
  ] as const) {
    await createDeployment(gw, {
      publicModel,
      provider: 'azure',
      upstreamModel: 'gpt-4o-mini',
      baseUrl: fake.url,
      apiKey: AZURE_KEY,
    });
  }
}

/** One chat call through the official client: its request id, the finish reasons it saw. */
async function chatCall(
  client: OpenAI,
  model: string,
  content: string,
  stream: boolean,
): Promise<{ requestId: string; finishes: string[] }> {
  const messages = [{ role: 'user' as const, content: `${SECRET_PROMPT} ${content}` }];
  if (!stream) {
    const { data, response } = await client.chat.completions.create({ model, messages }).withResponse();
    return {
      requestId: response.headers.get('x-request-id')!,
      finishes: data.choices.map((choice) => choice.finish_reason),
    };
  }
  const { data, response } = await client.chat.completions
    .create({ model, messages, stream: true })
    .withResponse();
  const finishes: string[] = [];
  for await (const chunk of data) {
    for (const choice of chunk.choices) if (choice.finish_reason) finishes.push(choice.finish_reason);
  }
  return { requestId: response.headers.get('x-request-id')!, finishes };
}

describe('content-filter verdicts in the request record (variant B)', () => {
  let fakes: { sync: OpenAIFake; async: OpenAIFake };
  let gw: TestGateway;
  let sql: TestSql;
  let client: OpenAI;
  let anthropic: Anthropic;

  before(async () => {
    fakes = await azureFakes();
    gw = await startTestGateway({ redis: false });
    sql = connect(gw);
    await azureDeployments(gw, fakes);
    const key = (await createKey(gw)).key;
    client = openaiClient(gw, key);
    anthropic = anthropicClient(gw, key);
  });
  after(async () => {
    await sql?.end();
    await gw?.close();
    await Promise.all([fakes?.sync.close(), fakes?.async.close()]);
  });

  /** The record's column once the call is final, and the same call in `GET /admin/logs`. */
  async function recorded(requestId: string): Promise<{ column: unknown; logged: LogItem }> {
    const row = (await operationOf(sql, requestId, 'success')) as unknown as { content_filter: unknown };
    const res = await admin<{ data: LogItem[] }>(gw, 'GET', `/admin/logs?requestId=${requestId}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.length, 1);
    return { column: row.content_filter, logged: res.body.data[0] };
  }

  const cases = [
    {
      name: 'JSON, default filter',
      model: 'azure-sync',
      stream: false,
      trigger: '[violence]',
      hits: VIOLENCE,
    },
    { name: 'SSE, default filter', model: 'azure-sync', stream: true, trigger: '[violence]', hits: VIOLENCE },
    {
      name: 'SSE, asynchronous filter',
      model: 'azure-async',
      stream: true,
      trigger: '[violence]',
      hits: VIOLENCE,
    },
    {
      name: 'SSE, a detector (no severity)',
      model: 'azure-async',
      stream: true,
      trigger: '[protected]',
      hits: PROTECTED,
    },
    {
      name: 'JSON, a detector (no severity)',
      model: 'azure-sync',
      stream: false,
      trigger: '[protected]',
      hits: PROTECTED,
    },
  ];
  for (const { name, model, stream, trigger, hits } of cases) {
    it(`${name}: finish_reason content_filter, the category and severity in the record and /admin/logs`, async () => {
      const { requestId, finishes } = await chatCall(client, model, `tell a story ${trigger}`, stream);
      assert.deepEqual(finishes, ['content_filter']);
      const { column, logged } = await recorded(requestId);
      assert.deepEqual(column, hits);
      assert.deepEqual(logged.contentFilter, hits);
      assert.ok(!JSON.stringify(column).includes('7Qx'), 'no prompt text in the verdict');
    });
  }

  for (const [model, stream] of [
    ['azure-sync', false],
    ['azure-sync', true],
    ['azure-async', true],
  ] as const) {
    it(`${model} ${stream ? 'SSE' : 'JSON'} without filtering leaves the column null`, async () => {
      const { requestId, finishes } = await chatCall(client, model, 'tell a story', stream);
      assert.deepEqual(finishes, ['stop']);
      const { column, logged } = await recorded(requestId);
      assert.equal(column, null);
      assert.equal(logged.contentFilter, null);
    });
  }

  it('an Anthropic client on Azure (Messages -> Chat): the verdict read before the translation', async () => {
    const { data, response } = await anthropic.messages
      .create({
        model: 'azure-sync',
        max_tokens: 64,
        messages: [{ role: 'user', content: `${SECRET_PROMPT} [violence]` }],
      })
      .withResponse();
    assert.equal(data.stop_reason, 'refusal');
    const { column, logged } = await recorded(response.headers.get('x-request-id')!);
    assert.deepEqual(column, VIOLENCE);
    assert.deepEqual(logged.contentFilter, VIOLENCE);
  });
});

describe('content-filter verdicts in request_logs (variant A)', () => {
  let fakes: { sync: OpenAIFake; async: OpenAIFake };
  let gw: TestGateway;
  let sql: TestSql;
  let client: OpenAI;

  before(async () => {
    fakes = await azureFakes();
    gw = await startTestGateway({ redis: false, env: { GATEWAY_VARIANT: 'a' } });
    sql = connect(gw);
    await azureDeployments(gw, fakes);
    client = openaiClient(gw, (await createKey(gw)).key);
  });
  after(async () => {
    await sql?.end();
    await gw?.close();
    await Promise.all([fakes?.sync.close(), fakes?.async.close()]);
  });

  const columnOf = (requestId: string) =>
    eventually(async () => {
      const [row] = await sql<{ content_filter: unknown }>`
        select content_filter from request_logs where request_id = ${requestId}`;
      return row;
    });

  for (const [model, stream] of [
    ['azure-sync', false],
    ['azure-async', true],
  ] as const) {
    it(`${model} ${stream ? 'SSE' : 'JSON'}: the verdict in the row; a call without filtering leaves it null`, async () => {
      const filtered = await chatCall(client, model, '[violence]', stream);
      assert.deepEqual(filtered.finishes, ['content_filter']);
      assert.deepEqual((await columnOf(filtered.requestId)).content_filter, VIOLENCE);
      const clean = await chatCall(client, model, 'hello', stream);
      assert.deepEqual(clean.finishes, ['stop']);
      assert.equal((await columnOf(clean.requestId)).content_filter, null);
    });
  }
});
