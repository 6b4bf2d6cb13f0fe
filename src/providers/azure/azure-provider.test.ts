import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { decodeAll } from '../../../test/fakes/decode-stream.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { UpstreamChatCompletion } from '../../formats/chat-completions/wire.ts';
import { SSE_DONE } from '../../formats/sse.ts';
import { openAIProvider } from '../openai/openai-provider.ts';
import type { DeploymentTarget, StreamEvent } from '../types.ts';
import { AZURE_DEFAULT_API_VERSION } from './azure-config.ts';
import { azureContentFilterOf } from './azure-content-filter.ts';
import { azureProvider } from './azure-provider.ts';

const target: DeploymentTarget = {
  id: 'dep_az',
  provider: 'azure',
  upstreamModel: 'my-gpt4o',
  apiKey: 'azure-key',
  baseUrl: 'https://myres.openai.azure.com/',
  providerOptions: {},
};
const body = { model: 'public', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('azure provider', () => {
  test('serves chat, embeddings, image generations and transcriptions natively, and needs a base URL', () => {
    assert.deepEqual(Object.keys(azureProvider.operations).sort(), [
      'audio.transcriptions',
      'chat.completions',
      'embeddings',
      'images.generations',
    ]);
    assert.equal(azureProvider.requiresBaseUrl, true);
  });

  test('the v1 API by default: /openai/v1 paths, the deployment as the body model, no api-version', () => {
    const request = azureProvider.operations['chat.completions']!.buildRequest({
      target,
      body,
      stream: false,
    });
    assert.equal(AZURE_DEFAULT_API_VERSION, 'v1');
    assert.equal(request.url, 'https://myres.openai.azure.com/openai/v1/chat/completions');
    assert.equal(JSON.parse(request.body as string).model, 'my-gpt4o');
    assert.equal(request.headers['api-key'], 'azure-key');
    assert.equal(request.headers.authorization, undefined);
  });

  test('a pinned dated version: deployment path and api-version query; names are encoded', () => {
    const pinned = { ...target, providerOptions: { apiVersion: '2024-10-21' } };
    const chatRequest = azureProvider.operations['chat.completions']!.buildRequest({
      target: pinned,
      body,
      stream: false,
    });
    assert.equal(
      chatRequest.url,
      'https://myres.openai.azure.com/openai/deployments/my-gpt4o/chat/completions?api-version=2024-10-21',
    );
    const request = azureProvider.operations.embeddings!.buildRequest({
      target: {
        ...target,
        upstreamModel: 'emb small',
        providerOptions: { apiVersion: '2025-04-01-preview' },
      },
      body: { model: 'public', input: 'x' },
      stream: false,
    });
    assert.equal(
      request.url,
      'https://myres.openai.azure.com/openai/deployments/emb%20small/embeddings?api-version=2025-04-01-preview',
    );
  });

  test('a field the pinned version predates is refused naming it; the v1 API takes it', () => {
    const build = (apiVersion: string | undefined, extra: Record<string, unknown>) =>
      azureProvider.operations['chat.completions']!.buildRequest({
        target: { ...target, providerOptions: apiVersion === undefined ? {} : { apiVersion } },
        body: { ...body, ...extra } as typeof body,
        stream: false,
      });
    for (const [version, field] of [
      ['2024-10-21', 'reasoning_effort'],
      ['2025-01-01-preview', 'verbosity'],
    ] as const) {
      assert.throws(
        () => build(version, { [field]: 'low' }),
        (e: unknown) => e instanceof GatewayError && e.code === 'unsupported_parameter' && e.param === field,
      );
    }
    assert.equal(
      JSON.parse(build('2024-12-01-preview', { reasoning_effort: 'low' }).body as string).reasoning_effort,
      'low',
    );
    assert.equal(JSON.parse(build(undefined, { verbosity: 'low' }).body as string).verbosity, 'low');
  });

  test('Responses only where the deployment declares it: /openai/v1/responses, or /openai/responses on a dated version', () => {
    const model = { upstreamModel: 'my-gpt4o' };
    assert.equal(azureProvider.operationsFor!({ ...model, providerOptions: {} }).responses, undefined);
    const responses = azureProvider.operationsFor!({ ...model, providerOptions: { responsesApi: true } })
      .responses!;
    const input = { model: 'public', input: 'hi' };
    assert.equal(
      responses.buildRequest({
        target: { ...target, providerOptions: { responsesApi: true } },
        body: input,
        stream: false,
      }).url,
      'https://myres.openai.azure.com/openai/v1/responses',
    );
    const dated = { responsesApi: true, apiVersion: '2025-04-01-preview' };
    assert.equal(
      responses.buildRequest({ target: { ...target, providerOptions: dated }, body: input, stream: false })
        .url,
      'https://myres.openai.azure.com/openai/responses?api-version=2025-04-01-preview',
    );
    const tooOld = azureProvider.optionsSchema.safeParse({ responsesApi: true, apiVersion: '2024-10-21' });
    assert.equal(tooOld.success, false);
    assert.deepEqual(tooOld.error?.issues[0].path, ['responsesApi']);
  });

  test('credential source: the api-key, or Entra ID with an app secret or the workload identity', () => {
    const source = (hasApiKey: boolean, providerOptions: Record<string, unknown>) =>
      azureProvider.credentialSource({ hasApiKey, providerOptions });
    assert.equal(source(true, {}), 'azure-api-key');
    assert.equal(
      source(true, { entra: { tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47' } }),
      'azure-entra-id',
    );
    assert.equal(source(false, {}), 'azure-entra-id');
    const request = azureProvider.operations['chat.completions']!.buildRequest({
      target: { ...target, providerOptions: { entra: {} } },
      body,
      stream: false,
    });
    assert.equal(request.headers['api-key'], undefined, 'a client secret is never sent as the api-key');
  });

  test('streamed chat asks for usage as on OpenAI (composed, not copied)', () => {
    const request = azureProvider.operations['chat.completions']!.buildRequest({
      target,
      body: { ...body, stream: true },
      stream: true,
    });
    assert.deepEqual(JSON.parse(request.body as string).stream_options, { include_usage: true });
  });

  test('a deployment without a base URL is a configuration defect', () => {
    assert.throws(
      () =>
        azureProvider.operations['chat.completions']!.buildRequest({
          target: { ...target, baseUrl: null },
          body,
          stream: false,
        }),
      (e: unknown) => e instanceof GatewayError && e.code === 'internal_error',
    );
  });

  test('the content filter refusal is a content_policy error', () => {
    const info = azureProvider.classifyError(
      400,
      {
        error: { code: 'content_filter', message: 'The response was filtered', param: 'prompt', status: 400 },
      },
      {},
    );
    assert.equal(info.code, 'content_policy_violation');
  });
});

const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
const chat = azureProvider.operations['chat.completions']!;

type Chunk = { id: string; object: string; choices: Array<Record<string, unknown>>; usage?: unknown };

function decode(name: string, includeUsage: boolean, cuts: number[] = []) {
  const decoder = chat.createStreamDecoder!(target, {
    publicModel: 'public',
    body: {
      model: 'public',
      messages: [],
      stream: true,
      stream_options: { include_usage: includeUsage },
    },
  });
  const events = decodeAll(decoder, fixture(name), cuts);
  const chunks = events.filter((e) => e.data !== SSE_DONE).map((e) => e.data as Chunk);
  return { decoder, events, chunks };
}

const text = (chunks: Chunk[]): string =>
  chunks.map((c) => (c.choices[0]?.delta as { content?: string } | undefined)?.content ?? '').join('');

/** Every chunk the client gets is OpenAI's chunk: a stream id, its object type, a delta on each choice. */
function assertOpenAIChunks(events: StreamEvent[]): void {
  assert.equal(events.at(-1)?.data, SSE_DONE);
  for (const event of events.slice(0, -1)) {
    const chunk = event.data as Chunk;
    assert.equal(chunk.object, 'chat.completion.chunk');
    assert.match(chunk.id, /^chatcmpl-/);
    assert.ok(!('prompt_filter_results' in chunk), 'the prompt annotation stays out');
    for (const choice of chunk.choices) {
      assert.ok('delta' in choice, 'every choice has a delta');
      assert.ok(!('content_filter_offsets' in choice), 'no asynchronous annotation reaches the client');
    }
  }
}

describe('azure chat streams: content-filter annotations', () => {
  test('the documented first chunk (prompt_filter_results, empty choices and ids) is accepted and dropped', () => {
    const bytes = fixture('azure-prompt-filter-first-chunk.sse');
    const firstEnd = bytes.indexOf('\n\n') + 2;
    for (const cuts of [[], [firstEnd], [17, firstEnd + 5]]) {
      const { decoder, events, chunks } = decode('azure-prompt-filter-first-chunk.sse', true, cuts);
      assertOpenAIChunks(events);
      assert.equal(text(chunks), 'Hello from Azure!');
      assert.equal(chunks.at(-2)?.choices[0]?.finish_reason, 'stop');
      assert.deepEqual(decoder.usage(), { inputTokens: 12, outputTokens: 4 });
    }
  });

  test('synchronous content_filter_results on ordinary chunks pass through as Azure sent them', () => {
    const { chunks } = decode('azure-prompt-filter-first-chunk.sse', false);
    const hello = chunks.find((c) => (c.choices[0].delta as { content?: string }).content === 'Hello');
    assert.ok(hello !== undefined);
    assert.deepEqual((hello.choices[0].content_filter_results as Record<string, unknown>).hate, {
      filtered: false,
      severity: 'safe',
    });
    assert.ok(
      chunks.every((c) => c.choices.length > 0),
      'the usage chunk is hidden when not asked for',
    );
  });

  test('asynchronous filter annotations (choices without delta) are dropped, text and usage kept', () => {
    const { decoder, events, chunks } = decode('azure-async-content-filter.sse', true);
    assertOpenAIChunks(events);
    assert.equal(text(chunks), 'Color is light.');
    const finishes = chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason));
    assert.deepEqual(
      finishes.filter((reason) => reason != null),
      ['stop'],
    );
    assert.deepEqual(decoder.usage(), { inputTokens: 11, outputTokens: 4 });
  });

  test('an asynchronous verdict that blocks becomes a content_filter finish under the stream id', () => {
    const { events, chunks } = decode('azure-async-content-filter-blocked.sse', false);
    assertOpenAIChunks(events);
    assert.equal(text(chunks), 'Hey Jude,');
    const last = chunks.at(-1)!;
    assert.equal(last.id, 'chatcmpl-AzQ8fT2bNfwVYcT1mBfUeyqHl2nX1');
    assert.deepEqual(last.choices, [
      { index: 0, delta: {}, logprobs: null, finish_reason: 'content_filter' },
    ]);
  });

  test('the OpenAI decoder without the Azure normaliser still refuses the annotation chunk', () => {
    const decoder = openAIProvider.operations['chat.completions']!.createStreamDecoder!(
      { ...target, provider: 'openai' },
      { body: { model: 'm', messages: [] }, publicModel: 'm' },
    );
    assert.throws(() => decodeAll(decoder, fixture('azure-prompt-filter-first-chunk.sse')));
  });
});

/** A recorded JSON answer as the adapter parses it. */
function parsedAnswer(name: string): unknown {
  return chat.parseResponse(JSON.parse(fixture(name).toString()), target);
}

/** What the decoder reports the filter withheld from a recorded stream. */
function streamedVerdict(name: string) {
  return decode(name, false).decoder.contentFilter?.();
}

describe('azure content-filter verdicts for the record', () => {
  test('azure-chat-completion-content-filter-finish.json: the category that filtered, with its severity', () => {
    assert.deepEqual(
      chat.contentFilterOf?.(parsedAnswer('azure-chat-completion-content-filter-finish.json')),
      [{ source: 'completion', index: 0, category: 'violence', severity: 'medium' }],
    );
  });

  test('azure-chat-completion-content-filter-results.json: annotations that filtered nothing are no verdict', () => {
    assert.equal(
      chat.contentFilterOf?.(parsedAnswer('azure-chat-completion-content-filter-results.json')),
      null,
    );
  });

  test('azure-async-content-filter-blocked.sse: the asynchronous verdict, a detector without severity', () => {
    assert.deepEqual(streamedVerdict('azure-async-content-filter-blocked.sse'), [
      { source: 'completion', index: 0, category: 'protected_material_text' },
    ]);
  });

  test('streams the filter let through have no verdict', () => {
    assert.equal(streamedVerdict('azure-prompt-filter-first-chunk.sse'), null);
    assert.equal(streamedVerdict('azure-async-content-filter.sse'), null);
  });

  test('the prompt, blocklists in both shapes, one entry per category, no citation, error or text', () => {
    const answer = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4o',
      prompt_filter_results: [
        {
          prompt_index: 1,
          content_filter_results: {
            jailbreak: { filtered: true, detected: true },
            hate: { filtered: false, severity: 'low' },
            custom_blocklists: { filtered: true, details: [{ filtered: true, id: 'competitors' }] },
          },
        },
      ],
      choices: [
        {
          index: 0,
          finish_reason: 'content_filter',
          message: { role: 'assistant', content: 'The code is' },
          content_filter_results: {
            protected_material_code: {
              filtered: true,
              detected: true,
              citation: { URL: 'https://github.com/example/repo', license: 'MIT' },
            },
            custom_blocklists: [
              { filtered: false, id: 'unused' },
              { filtered: true, id: 'profanity' },
            ],
            error: { code: 'content_filter_error', message: 'The contents are not filtered' },
          },
        },
        { index: 1, finish_reason: 'stop', message: { role: 'assistant', content: 'ok' } },
      ],
    } as unknown as UpstreamChatCompletion;
    const hits = azureContentFilterOf(answer);
    assert.deepEqual(hits, [
      { source: 'prompt', index: 1, category: 'jailbreak' },
      { source: 'prompt', index: 1, category: 'custom_blocklists', blocklists: ['competitors'] },
      { source: 'completion', index: 0, category: 'protected_material_code' },
      { source: 'completion', index: 0, category: 'custom_blocklists', blocklists: ['profanity'] },
    ]);
    assert.ok(!JSON.stringify(hits).includes('github.com'), 'the citation stays in the answer');
  });

  test('a category filtered on several chunks is kept once', () => {
    const twice = fixture('azure-async-content-filter-blocked.sse')
      .toString()
      .replace(/(data: .*"finish_reason":"content_filter".*\n)/, '$1\n$1');
    const decoder = chat.createStreamDecoder!(target, { publicModel: 'public' });
    const events = decodeAll(decoder, Buffer.from(twice));
    assert.equal(JSON.stringify(events).split('"finish_reason":"content_filter"').length - 1, 2);
    assert.equal(decoder.contentFilter?.()?.length, 1);
  });
});
