import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { decodeAll } from '../../../test/fakes/decode-stream.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { formatSseEvent, UnparsedEvent } from '../../formats/sse.ts';
import { eventReaderOf } from '../../upstream/event-reader.ts';
import type { DeploymentTarget } from '../types.ts';
import { openAIProvider } from './openai-provider.ts';
import { OpenAIResponsesStreamDecoder } from './openai-responses-stream-decoder.ts';

const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
const recorded = fixture('responses-stream.sse');
const responses = openAIProvider.operations.responses!;
const target: DeploymentTarget = {
  id: 'dep_1',
  provider: 'openai',
  upstreamModel: 'gpt-4.1',
  apiKey: 'sk-upstream',
  baseUrl: null,
  providerOptions: {},
};

function sse(type: string, fields: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
}

describe('openai responses', () => {
  test('posts to {base}/responses with the upstream model, statelessly', () => {
    const request = responses.buildRequest({
      target,
      body: { model: 'public', input: 'hi', store: true },
      stream: true,
    });
    assert.equal(request.url, 'https://api.openai.com/v1/responses');
    assert.deepEqual(JSON.parse(request.body as string), {
      model: 'gpt-4.1',
      input: 'hi',
      store: false,
      stream: true,
    });
  });

  test('asks for encrypted reasoning only where reasoning is in play, and drops what cannot be resent', () => {
    const sent = (body: Record<string, unknown>, reasoning = false) =>
      JSON.parse(
        responses.buildRequest({ target: { ...target, knownReasoning: reasoning }, body, stream: false })
          .body as string,
      );
    assert.equal(sent({ model: 'm', input: 'hi' }).include, undefined, 'a model not known to reason');
    assert.deepEqual(sent({ model: 'm', input: 'hi' }, true).include, ['reasoning.encrypted_content']);
    assert.deepEqual(
      sent({
        model: 'm',
        input: 'hi',
        reasoning: { effort: 'low' },
        include: ['message.output_text.logprobs'],
      }).include,
      ['message.output_text.logprobs', 'reasoning.encrypted_content'],
    );
    const carried = sent({
      model: 'm',
      input: [
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'opaque' },
        { role: 'user', content: 'next' },
      ],
    });
    assert.deepEqual(
      carried.input.map((item: { id?: string; role?: string }) => item.id ?? item.role),
      ['rs_2', 'user'],
    );
    assert.deepEqual(carried.include, ['reasoning.encrypted_content']);
  });

  test('a recorded response parses, usage from input/output tokens', () => {
    const answer = responses.parseResponse(JSON.parse(fixture('response.json').toString()), target);
    assert.deepEqual(responses.usageOf(answer), { inputTokens: 37, outputTokens: 11 });
  });

  test('the decoder passes each typed event on under its own name, usage from response.completed', () => {
    const decoder = eventReaderOf(new OpenAIResponsesStreamDecoder('openai', 'public-gpt'));
    const events = decodeAll(decoder, recorded);
    assert.deepEqual(
      events.map((e) => e.event),
      [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        ...Array(8).fill('response.output_text.delta'),
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ],
    );
    assert.equal((events[0].data as { type: string }).type, 'response.created');
    assert.deepEqual(decoder.usage(), { inputTokens: 37, outputTokens: 11 });
  });

  test('passed on, each delta event is the upstream text it was and reads as the parsed event', () => {
    const parsed = decodeAll(new OpenAIResponsesStreamDecoder('openai', 'public-gpt'), recorded);
    const passed = decodeAll(new OpenAIResponsesStreamDecoder('openai', 'public-gpt', true), recorded);
    const frames = recorded.toString().split(/(?<=\n\n)/);
    assert.ok(
      !parsed.some((event) => event instanceof UnparsedEvent),
      'a translated route reads every event',
    );
    assert.deepEqual(
      passed.map((event) => event instanceof UnparsedEvent),
      parsed.map((event) => event.event === 'response.output_text.delta'),
    );
    passed.forEach((event, i) => {
      if (event instanceof UnparsedEvent) assert.equal(formatSseEvent(event), frames[i]);
      assert.equal(event.event, parsed[i].event);
      assert.deepEqual(event.data, parsed[i].data);
    });
  });

  test('a stream that ends before response.completed fails in finish()', () => {
    const decoder = eventReaderOf(new OpenAIResponsesStreamDecoder('openai', 'public-gpt'));
    decoder.push(recorded.subarray(0, recorded.indexOf('event: response.completed')));
    assert.throws(
      () => decoder.finish(),
      (e: unknown) => e instanceof GatewayError && e.code === 'upstream_error',
    );
  });

  test('response.incomplete is a normal end', () => {
    const decoder = eventReaderOf(new OpenAIResponsesStreamDecoder('openai', 'public-gpt'));
    const response = JSON.parse(fixture('response.json').toString());
    decoder.push(
      Buffer.from(
        sse('response.incomplete', { response: { ...response, status: 'incomplete' }, sequence_number: 0 }),
      ),
    );
    assert.doesNotThrow(() => decoder.finish());
  });

  test('response.failed is raised, classified by its error code', () => {
    const response = JSON.parse(fixture('response.json').toString());
    const failed = {
      ...response,
      status: 'failed',
      error: {
        code: 'context_length_exceeded',
        message: 'Your input exceeds the context window of this model.',
      },
    };
    const decoder = eventReaderOf(new OpenAIResponsesStreamDecoder('openai', 'public-gpt'));
    assert.throws(
      () => decoder.push(Buffer.from(sse('response.failed', { response: failed, sequence_number: 3 }))),
      (e: unknown) => e instanceof GatewayError && e.code === 'context_length_exceeded',
    );
  });

  test('an error event is raised as an upstream_error', () => {
    const decoder = eventReaderOf(new OpenAIResponsesStreamDecoder('openai', 'public-gpt'));
    assert.throws(
      () =>
        decoder.push(
          Buffer.from(
            sse('error', { code: 'server_error', message: 'boom', param: null, sequence_number: 1 }),
          ),
        ),
      (e: unknown) => e instanceof GatewayError && e.code === 'upstream_error',
    );
  });

  test('property: any split of the recorded stream decodes to the same events', () => {
    const whole = decodeAll(new OpenAIResponsesStreamDecoder('openai', 'public-gpt'), recorded);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: recorded.length - 1 }), { maxLength: 40 }),
        (cuts) => {
          assert.deepEqual(
            decodeAll(new OpenAIResponsesStreamDecoder('openai', 'public-gpt'), recorded, cuts),
            whole,
          );
        },
      ),
    );
  });
});
