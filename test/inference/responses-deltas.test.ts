import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { countOutputTokens, estimateInputTokens } from '../../src/formats/estimate-tokens.ts';
import {
  type ScriptedStreamGateway,
  startScriptedStreamGateway,
} from '../helpers/scripted-stream-gateway.ts';
import { openaiClient } from './support.ts';

/** One SSE event as OpenAI writes it: the type as the event name. */
const sse = (event: string, data: string) => `event: ${event}\ndata: ${data}\n\n`;
const typed = (type: string, fields: Record<string, unknown>) =>
  sse(type, JSON.stringify({ type, ...fields }));

/** The delta events, as OpenAI writes them (with `obfuscation`), one in another member order: passed on byte for byte. */
const COMPACT_DELTAS: [string, string][] = [
  [
    'response.reasoning_summary_text.delta',
    '{"type":"response.reasoning_summary_text.delta","sequence_number":4,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Weighing it.","obfuscation":"k2"}',
  ],
  [
    'response.output_text.delta',
    '{"type":"response.output_text.delta","sequence_number":9,"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hello, ","logprobs":[],"obfuscation":"Qx9"}',
  ],
  [
    'response.output_text.delta',
    '{"delta":"\\u00e9t\\u00e9 \\"quoted\\"\\n","logprobs":[],"obfuscation":"z","type":"response.output_text.delta","content_index":0,"item_id":"msg_1","output_index":1,"sequence_number":10}',
  ],
  [
    'response.function_call_arguments.delta',
    '{"type":"response.function_call_arguments.delta","sequence_number":15,"item_id":"fc_1","output_index":2,"delta":"{\\"city\\":","obfuscation":"ab1"}',
  ],
  [
    'response.function_call_arguments.delta',
    '{"type":"response.function_call_arguments.delta","sequence_number":16,"item_id":"fc_1","output_index":2,"delta":"\\"Paris\\"}","obfuscation":"c"}',
  ],
];
/** A delta written with spaces: parsed, checked and written again compact. */
const SPACED_DELTA =
  '{"type": "response.output_text.delta", "sequence_number": 11, "item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": "!", "logprobs": []}';
const TEXT = 'Hello, été "quoted"\n!';
const ARGUMENTS = '{"city":"Paris"}';
/** What billing counts from the deltas when no usage comes: every `*.delta` string, in stream order. */
const DELTA_TEXTS = ['Weighing it.', 'Hello, ', 'été "quoted"\n', '!', '{"city":', '"Paris"}'];

const reasoning = {
  id: 'rs_1',
  type: 'reasoning',
  summary: [{ type: 'summary_text', text: 'Weighing it.' }],
};
const message = {
  id: 'msg_1',
  type: 'message',
  status: 'completed',
  role: 'assistant',
  content: [{ type: 'output_text', text: TEXT, annotations: [], logprobs: [] }],
};
const call = {
  id: 'fc_1',
  type: 'function_call',
  status: 'completed',
  call_id: 'call_1',
  name: 'weather',
  arguments: ARGUMENTS,
};
const SUMMARY_PART = { item_id: 'rs_1', output_index: 0, summary_index: 0 };
const EMPTY_SUMMARY = { type: 'summary_text', text: '' };
const response = (status: string, output: unknown[], usage: unknown) => ({
  id: 'resp_1',
  object: 'response',
  created_at: 1741290958,
  status,
  error: null,
  model: 'gpt-upstream',
  output,
  usage,
});

const HEAD = [
  typed('response.created', { sequence_number: 0, response: response('in_progress', [], null) }),
  typed('response.in_progress', { sequence_number: 1, response: response('in_progress', [], null) }),
  typed('response.output_item.added', {
    sequence_number: 2,
    output_index: 0,
    item: { ...reasoning, summary: [] },
  }),
  typed('response.reasoning_summary_part.added', {
    sequence_number: 3,
    ...SUMMARY_PART,
    part: EMPTY_SUMMARY,
  }),
  sse(...COMPACT_DELTAS[0]),
  typed('response.reasoning_summary_part.done', {
    sequence_number: 5,
    ...SUMMARY_PART,
    part: reasoning.summary[0],
  }),
  typed('response.output_item.done', { sequence_number: 6, output_index: 0, item: reasoning }),
  typed('response.output_item.added', {
    sequence_number: 7,
    output_index: 1,
    item: { ...message, status: 'in_progress', content: [] },
  }),
  typed('response.content_part.added', {
    sequence_number: 8,
    item_id: 'msg_1',
    output_index: 1,
    content_index: 0,
    part: { type: 'output_text', text: '', annotations: [] },
  }),
  sse(...COMPACT_DELTAS[1]),
  sse(...COMPACT_DELTAS[2]),
  sse('response.output_text.delta', SPACED_DELTA),
  typed('response.output_text.done', {
    sequence_number: 12,
    item_id: 'msg_1',
    output_index: 1,
    content_index: 0,
    text: TEXT,
    logprobs: [],
  }),
  typed('response.output_item.done', { sequence_number: 13, output_index: 1, item: message }),
  typed('response.output_item.added', {
    sequence_number: 14,
    output_index: 2,
    item: { ...call, status: 'in_progress', arguments: '' },
  }),
  sse(...COMPACT_DELTAS[3]),
  sse(...COMPACT_DELTAS[4]),
];
const USAGE = { input_tokens: 20, output_tokens: 9, total_tokens: 29 };
const TAIL = [
  typed('response.function_call_arguments.done', {
    sequence_number: 17,
    item_id: 'fc_1',
    output_index: 2,
    arguments: ARGUMENTS,
  }),
  typed('response.output_item.done', { sequence_number: 18, output_index: 2, item: call }),
  typed('response.completed', {
    sequence_number: 19,
    response: response('completed', [reasoning, message, call], USAGE),
  }),
];
const FAILED = typed('response.failed', {
  sequence_number: 17,
  response: {
    ...response('failed', [], null),
    error: { code: 'server_error', message: 'The model failed mid-answer.' },
  },
});

const INPUT = 'What is the weather in Paris?';

/**
 * A native Responses stream (Responses in, an openai deployment): its delta events name no model
 * and carry no usage, so they are passed on as the upstream wrote them, unparsed
 * (docs/decisions/hot-path.md, Native Responses deltas not parsed); billing reads their text.
 */
describe('native Responses stream deltas', () => {
  let scripted: ScriptedStreamGateway;
  before(async () => {
    scripted = await startScriptedStreamGateway(
      {
        whole: { text: [...HEAD, ...TAIL].join('') },
        // The deltas, then the connection is gone: no response.completed with the usage.
        cut: { text: HEAD.join(''), cut: true },
        failed: { text: [...HEAD, FAILED].join('') },
      },
      { provider: 'openai', upstreamModel: 'gpt-upstream' },
    );
  });
  after(() => scripted?.close());

  const body = (model: string) => ({ model, input: INPUT, stream: true });

  function stream(model: string, key: string): Promise<Response> {
    return fetch(`${scripted.gw.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body(model)),
    });
  }

  it('passes each compact delta on as the upstream wrote it, and rewrites any other', async () => {
    const answer = await stream('whole', scripted.gw.masterKey);
    const text = await answer.text();
    assert.equal(answer.status, 200, text);
    for (const delta of COMPACT_DELTAS) assert.ok(text.includes(sse(...delta)), delta[1]);
    assert.ok(!text.includes(SPACED_DELTA));
    assert.ok(text.includes(sse('response.output_text.delta', JSON.stringify(JSON.parse(SPACED_DELTA)))));
    assert.ok(text.includes('"model":"whole"') && !text.includes('gpt-upstream'));
  });

  it('gives the official client every delta and the whole response', async () => {
    const events = openaiClient(scripted.gw, scripted.gw.masterKey).responses.stream({
      model: 'whole',
      input: INPUT,
    });
    const deltas: Record<string, string> = {};
    for await (const event of events) {
      if (event.type.endsWith('.delta') && 'delta' in event && typeof event.delta === 'string') {
        deltas[event.type] = (deltas[event.type] ?? '') + event.delta;
      }
    }
    assert.deepEqual(deltas, {
      'response.reasoning_summary_text.delta': 'Weighing it.',
      'response.output_text.delta': TEXT,
      'response.function_call_arguments.delta': ARGUMENTS,
    });
    const final: OpenAI.Responses.Response = await events.finalResponse();
    assert.equal(final.model, 'whole');
    assert.equal(final.output_text, TEXT);
    assert.deepEqual(
      final.output.map((item) => (item.type === 'function_call' ? item.arguments : item.type)),
      ['reasoning', 'message', ARGUMENTS],
    );
    assert.equal(final.usage?.output_tokens, 9);
  });

  it('ends a stream whose upstream failed after its deltas with the gateway response.failed', async () => {
    const answer = await stream('failed', scripted.gw.masterKey);
    const text = await answer.text();
    assert.ok(text.includes(sse(...COMPACT_DELTAS[3])));
    const last = text.trimEnd().split('\n\n').at(-1) ?? '';
    assert.match(last, /^event: response\.failed\ndata: /);
    assert.doesNotMatch(last, /The model failed mid-answer/);
  });

  it("bills a stream cut before its usage for the deltas' text, read without parsing them", async () => {
    // No usage came: the input estimated from the request, the output counted from every delta.
    const expected =
      estimateInputTokens('responses', { ...body('cut'), store: true }) +
      countOutputTokens(DELTA_TEXTS.join(''));
    assert.deepEqual(await scripted.recordedCost((key) => stream('cut', key)), { calls: 1, cents: expected });
  });
});
