import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { decodeAll } from '../../../test/fakes/decode-stream.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { chatCompletionsFormat } from '../../formats/chat-completions/index.ts';
import type { ChatCompletionRequest } from '../../formats/chat-completions/wire.ts';
import { formatSseEvent, SSE_DONE, UnparsedEvent } from '../../formats/sse.ts';
import type { StreamEvent } from '../../formats/stream-event.ts';
import { chunksOf, cutsIn } from '../../formats/test-support.ts';
import { eventReaderOf } from '../../upstream/event-reader.ts';
import type { DeploymentTarget } from '../types.ts';
import { OpenAIChatStreamDecoder } from './openai-chat-stream-decoder.ts';
import { openAIProvider } from './openai-provider.ts';

const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
const toolCallsStream = fixture('chat-stream-tool-calls.sse');
const textStream = fixture('chat-stream-text.sse');
const chat = openAIProvider.operations['chat.completions']!;

const target: DeploymentTarget = {
  id: 'dep_1',
  provider: 'openai',
  upstreamModel: 'gpt-4o-2024-08-06',
  apiKey: 'sk-upstream',
  baseUrl: null,
  providerOptions: {},
};
const body: ChatCompletionRequest = { model: 'public-gpt', messages: [{ role: 'user', content: 'hi' }] };

describe('openai chat.completions: request', () => {
  test('posts the client body with the upstream model to {base}/chat/completions with a Bearer key', () => {
    const request = chat.buildRequest({ target, body, stream: false });
    assert.equal(request.url, 'https://api.openai.com/v1/chat/completions');
    assert.equal(request.method, 'POST');
    assert.equal(request.headers.authorization, 'Bearer sk-upstream');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(request.body as string), { ...body, model: 'gpt-4o-2024-08-06' });
  });

  test('a streamed call always asks the upstream for usage, keeping the client stream options', () => {
    const request = chat.buildRequest({
      target,
      body: { ...body, stream: true, stream_options: { include_obfuscation: false } },
      stream: true,
    });
    const sent = JSON.parse(request.body as string);
    assert.equal(sent.stream, true);
    assert.deepEqual(sent.stream_options, { include_obfuscation: false, include_usage: true });
    assert.equal(request.headers.accept, 'text/event-stream');
  });

  test('a non-streamed call sends no stream_options of its own', () => {
    const sent = JSON.parse(chat.buildRequest({ target, body, stream: false }).body as string);
    assert.equal('stream_options' in sent, false);
  });

  test('a base URL with a trailing slash and organization/project options are honoured', () => {
    const request = chat.buildRequest({
      target: {
        ...target,
        baseUrl: 'https://proxy.example/v1/',
        providerOptions: { organization: 'org_1', project: 'proj_1' },
      },
      body,
      stream: false,
    });
    assert.equal(request.url, 'https://proxy.example/v1/chat/completions');
    assert.equal(request.headers['openai-organization'], 'org_1');
    assert.equal(request.headers['openai-project'], 'proj_1');
  });

  test('a deployment without a key sends no Authorization header', () => {
    const request = chat.buildRequest({ target: { ...target, apiKey: null }, body, stream: false });
    assert.equal(request.headers.authorization, undefined);
  });
});

describe('openai chat.completions: response', () => {
  test('a recorded completion parses as it came, with its usage', () => {
    const recorded = JSON.parse(fixture('chat-completion.json').toString());
    const answer = chat.parseResponse(recorded, target);
    assert.deepEqual(answer, recorded);
    assert.deepEqual(chat.usageOf(answer), { inputTokens: 19, outputTokens: 10 });
  });

  test('a completion with tool calls parses', () => {
    const recorded = JSON.parse(fixture('chat-completion-tool-calls.json').toString());
    assert.deepEqual(chat.parseResponse(recorded, target), recorded);
  });

  test('an answer that is not a chat completion is an upstream_error', () => {
    assert.throws(
      () => chat.parseResponse({ object: 'list', data: [] }, target),
      (error: unknown) => error instanceof GatewayError && error.code === 'upstream_error',
    );
  });
});

describe('openai chat.completions: answers read unparsed', () => {
  /** Chat completions as an upstream may write them: any content, extra members, nested `usage` keys. */
  const completion = fc.record({
    id: fc.string(),
    object: fc.constant('chat.completion'),
    created: fc.integer({ min: 0 }),
    model: fc.string({ unit: 'binary' }),
    choices: fc.array(
      fc.record({
        index: fc.nat(),
        message: fc.record({
          role: fc.constant('assistant'),
          content: fc.oneof(fc.string({ unit: 'binary' }), fc.constant('"usage": {"prompt_tokens": 1}')),
        }),
        finish_reason: fc.constant('stop'),
        usage: fc.jsonValue(),
      }),
      { maxLength: 3 },
    ),
    usage: fc.record({
      prompt_tokens: fc.nat(),
      completion_tokens: fc.nat(),
      total_tokens: fc.nat(),
      prompt_tokens_details: fc.option(fc.record({ cached_tokens: fc.nat() }), { nil: undefined }),
    }),
    extra: fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
  });

  test('reads the usage and the model a parser reads, for any answer, spelling and chunks it arrived in', () => {
    fc.assert(
      fc.property(completion, fc.boolean(), cutsIn(2048), (answer, indented, cuts) => {
        const bytes = Buffer.from(JSON.stringify(answer, null, indented ? 2 : undefined));
        const read = chat.readPassedOn!(chunksOf(bytes, cuts));
        assert.notEqual(read, null);
        assert.deepEqual(read!.usage, chat.usageOf(chat.parseResponse(JSON.parse(bytes.toString()), target)));
        assert.equal(JSON.parse(bytes.toString('utf8', read!.model[0], read!.model[1])), answer.model);
      }),
    );
  });

  test('reads nothing from an answer whose top level is not a completion with usage', () => {
    const recorded = JSON.parse(fixture('chat-completion.json').toString());
    const { choices: _choices, ...noChoices } = recorded;
    for (const answer of [
      noChoices,
      { ...recorded, object: 'list' },
      { ...recorded, object: 'chat.completioN' },
      { ...recorded, object: 'chat.completion.chunk' },
      { ...recorded, created: '1' },
      { ...recorded, usage: null },
      { ...recorded, usage: { prompt_tokens: 'many' } },
      { ...recorded, model: 7 },
    ]) {
      assert.equal(chat.readPassedOn!([Buffer.from(JSON.stringify(answer))]), null, JSON.stringify(answer));
    }
    assert.notEqual(chat.readPassedOn!([Buffer.from(JSON.stringify(recorded))]), null);
  });
});

describe('openai chat.completions: stream decoder', () => {
  test('a client that asked for usage gets every chunk, the usage chunk and [DONE]', () => {
    const decoder = eventReaderOf(
      chat.createStreamDecoder!(target, {
        body: { ...body, stream: true, stream_options: { include_usage: true } },
        publicModel: 'public-gpt',
      }),
    );
    const events = decodeAll(decoder, toolCallsStream);
    assert.equal(events.length, 13);
    assert.deepEqual(events.at(-1), { data: SSE_DONE });
    const usageChunk = events.at(-2)?.data as { choices: unknown[]; usage: unknown };
    assert.deepEqual(usageChunk.choices, []);
    assert.notEqual(usageChunk.usage, null);
    assert.deepEqual(decoder.usage(), { inputTokens: 82, outputTokens: 41, cachedInputTokens: 64 });
  });

  test('a client that did not ask gets no usage chunk and no usage field, yet usage is known', () => {
    const decoder = eventReaderOf(
      chat.createStreamDecoder!(target, { body: { ...body, stream: true }, publicModel: 'public-gpt' }),
    );
    const events = decodeAll(decoder, toolCallsStream);
    assert.equal(events.length, 12);
    for (const event of events.slice(0, -1)) assert.equal('usage' in (event.data as object), false);
    assert.deepEqual(decoder.usage(), { inputTokens: 82, outputTokens: 41, cachedInputTokens: 64 });
  });

  test('tool-call deltas pass through in order', () => {
    const events = decodeAll(
      new OpenAIChatStreamDecoder({ provider: 'openai', publicModel: 'public-gpt', includeUsage: false }),
      toolCallsStream,
    );
    const args = events
      .flatMap((e) =>
        e.data === SSE_DONE
          ? []
          : (
              e.data as {
                choices: Array<{
                  delta: { tool_calls?: Array<{ index: number; function?: { arguments?: string } }> };
                }>;
              }
            ).choices,
      )
      .flatMap((c) => c.delta.tool_calls ?? [])
      .filter((call) => call.index === 0)
      .map((call) => call.function?.arguments ?? '')
      .join('');
    assert.equal(args, '{"location":"Paris, France"}');
  });

  test('a stream that ends without [DONE] fails in finish()', () => {
    const cut = toolCallsStream.subarray(0, toolCallsStream.indexOf('data: [DONE]'));
    const decoder = eventReaderOf(
      new OpenAIChatStreamDecoder({ provider: 'openai', publicModel: 'public-gpt', includeUsage: true }),
    );
    decoder.push(cut);
    assert.throws(
      () => decoder.finish(),
      (error: unknown) => error instanceof GatewayError && error.code === 'upstream_error',
    );
  });

  test('an error object inside the stream is raised as a classified GatewayError without provider wording', () => {
    const decoder = eventReaderOf(
      new OpenAIChatStreamDecoder({ provider: 'openai', publicModel: 'public-gpt', includeUsage: false }),
    );
    const bytes = Buffer.from(
      'data: {"error":{"message":"The server had an error","type":"server_error","code":null}}\n\n',
    );
    assert.throws(
      () => decoder.push(bytes),
      (error: unknown) =>
        error instanceof GatewayError &&
        error.code === 'upstream_error' &&
        !error.publicMessage.includes('server had') &&
        (error.detail as { providerMessage: string }).providerMessage === 'The server had an error',
    );
  });

  test("vLLM's flat error object mid-stream is classified too", () => {
    const decoder = eventReaderOf(
      new OpenAIChatStreamDecoder({
        provider: 'openai-compatible',
        publicModel: 'public-gpt',
        includeUsage: false,
      }),
    );
    const bytes = Buffer.from(
      'data: {"object":"error","message":"This model\'s maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}\n\n',
    );
    assert.throws(
      () => decoder.push(bytes),
      (e: unknown) => e instanceof GatewayError && e.code === 'context_length_exceeded',
    );
  });

  test('a chunk that is not JSON is a malformed upstream answer', () => {
    const decoder = eventReaderOf(
      new OpenAIChatStreamDecoder({ provider: 'openai', publicModel: 'public-gpt', includeUsage: false }),
    );
    assert.throws(() => decoder.push(Buffer.from('data: {not json\n\n')), GatewayError);
  });

  test('property: any split of a recorded stream decodes to the same events', () => {
    for (const recorded of [toolCallsStream, textStream]) {
      const whole = decodeAll(
        new OpenAIChatStreamDecoder({ provider: 'openai', publicModel: 'public-gpt', includeUsage: true }),
        recorded,
      );
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.integer({ min: 1, max: recorded.length - 1 }), { maxLength: 40 }),
          (cuts) => {
            const decoder = eventReaderOf(
              new OpenAIChatStreamDecoder({
                provider: 'openai',
                publicModel: 'public-gpt',
                includeUsage: true,
              }),
            );
            assert.deepEqual(decodeAll(decoder, recorded, cuts), whole);
          },
        ),
      );
    }
  });
});

describe('openai chat.completions: common chunks passed on unparsed', () => {
  const decoder = (includeUsage = true) =>
    new OpenAIChatStreamDecoder({
      provider: 'openai',
      publicModel: 'public-gpt',
      includeUsage,
      passedOn: true,
    });
  const sent = (event: StreamEvent): unknown => {
    const line = formatSseEvent(event);
    return line === 'data: [DONE]\n\n' ? SSE_DONE : JSON.parse(line.slice('data: '.length));
  };
  /** The recorded stream's events as the upstream sent them, with the public model. */
  const recorded = (bytes: Buffer): unknown[] =>
    bytes
      .toString()
      .split('\n\n')
      .filter((event) => event.startsWith('data: '))
      .map((event) => event.slice('data: '.length))
      .map((data) => (data === SSE_DONE ? SSE_DONE : { ...JSON.parse(data), model: 'public-gpt' }));

  test('content chunks after the first leave as the upstream wrote them, and read as it wrote them', () => {
    const events = decodeAll(decoder(), textStream);
    assert.ok(
      events.filter((event) => event instanceof UnparsedEvent).length >= 3,
      'content chunks unparsed',
    );
    assert.deepEqual(events.map(sent), recorded(textStream));
    assert.deepEqual(
      events.map((event) => event.data),
      recorded(textStream),
    );
  });

  test('a client that did not ask for usage gets the same chunks without usage', () => {
    const events = decodeAll(decoder(false), textStream);
    const expected = recorded(textStream)
      .filter((data) => data === SSE_DONE || (data as { usage: unknown }).usage === null)
      .map((data) => {
        if (data === SSE_DONE) return data;
        const { usage: _usage, ...rest } = data as { usage: unknown };
        return rest;
      });
    assert.deepEqual(events.map(sent), expected);
  });

  test('an unparsed chunk carries the text billing counts, as the format reads it from the data', () => {
    for (const event of decodeAll(decoder(), textStream)) {
      if (!(event instanceof UnparsedEvent)) continue;
      const texts: string[] = [];
      chatCompletionsFormat.streamedText(event.data as Record<string, unknown>, texts);
      assert.equal(event.generatedText, texts.join(''));
    }
  });

  test('the answer assembled from unparsed chunks (response cache, hooks, payloads) is the whole answer', () => {
    const assembler = chatCompletionsFormat.createAssembler();
    const events = decodeAll(decoder(false), textStream);
    for (const event of events) assembler.push(event);
    const answer = assembler.answer(null) as {
      model: string;
      choices: Array<{ message: { content: string }; finish_reason: string }>;
    };
    assert.equal(answer.model, 'public-gpt');
    assert.equal(answer.choices[0]?.message.content, 'Hello! How can I help you today?');
    assert.equal(answer.choices[0]?.finish_reason, 'stop');
  });

  const first = textStream.subarray(0, textStream.indexOf('\n\n') + 2);
  const content = (text: string): string =>
    `data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}},"finish_reason":null}]}\n\n`;

  test('an error object after content chunks still fails the stream after them', () => {
    const reader = eventReaderOf(decoder());
    const events = reader.push(
      Buffer.concat([
        first,
        Buffer.from(content('Hel')),
        Buffer.from('data: {"error":{"message":"The server had an error","type":"server_error"}}\n\n'),
      ]),
    );
    assert.equal(events.length, 2);
    assert.throws(
      () => reader.finish(),
      (error: unknown) => error instanceof GatewayError && error.code === 'upstream_error',
    );
  });

  test('a chunk that is not JSON after content chunks is still a malformed upstream answer', () => {
    const reader = eventReaderOf(decoder());
    reader.push(Buffer.concat([first, Buffer.from(content('Hel'))]));
    assert.throws(
      () => reader.push(Buffer.from('data: {"id":"chatcmpl-123","model":"gpt-4o-mini"\n\n')),
      GatewayError,
    );
    const other = eventReaderOf(decoder());
    other.push(first);
    assert.throws(() => other.push(Buffer.from('data: "gpt-4o-mini"\n\n')), GatewayError);
  });

  test('a chunk of the common shape with broken JSON inside is passed on as sent; readers of its data get null', () => {
    const broken =
      'data: {"id":"chatcmpl-123","model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"lo"},]}\n\n';
    const reader = eventReaderOf(decoder());
    const events = reader.push(Buffer.concat([first, Buffer.from(broken)]));
    const passed = events.at(-1);
    assert.ok(passed instanceof UnparsedEvent);
    assert.equal(
      formatSseEvent(passed),
      'data: {"id":"chatcmpl-123","model":"public-gpt","choices":[{"index":0,"delta":{"content":"lo"},]}\n\n',
    );
    assert.equal(passed.data, null);
    assert.equal(passed.generatedText, 'lo');
  });

  test('a decoder whose events a translator reads parses and checks every chunk, as before', () => {
    const broken =
      'data: {"id":"chatcmpl-123","model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"lo"},]}\n\n';
    const translated = new OpenAIChatStreamDecoder({
      provider: 'openai',
      publicModel: 'public-gpt',
      includeUsage: true,
    });
    assert.equal(
      decodeAll(translated, textStream).some((event) => event instanceof UnparsedEvent),
      false,
    );
    const reader = eventReaderOf(
      new OpenAIChatStreamDecoder({ provider: 'openai', publicModel: 'public-gpt', includeUsage: true }),
    );
    reader.push(first);
    assert.throws(() => reader.push(Buffer.from(broken)), GatewayError);
  });
});
