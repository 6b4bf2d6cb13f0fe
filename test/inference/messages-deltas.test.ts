import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countOutputTokens } from '../../src/formats/estimate-tokens.ts';
import {
  type ScriptedStreamGateway,
  startScriptedStreamGateway,
} from '../helpers/scripted-stream-gateway.ts';
import { anthropicClient } from './support.ts';

/** One SSE event as Anthropic writes it. */
const sse = (event: string, data: string) => `event: ${event}\ndata: ${data}\n\n`;

/** The content deltas, as compact as Anthropic writes them: passed on byte for byte. */
const COMPACT_DELTAS = [
  '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me think."}}',
  '{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2lnbmF0dXJl"}}',
  '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hello, "}}',
  '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"\\u00e9t\\u00e9 \\"quoted\\"\\n"}}',
];
/** A delta written with spaces: parsed, checked and written again compact. */
const SPACED_DELTA =
  '{"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "!"}}';
const TEXTS = ['Let me think.', 'Hello, ', 'été "quoted"\n', '!'];

const HEAD = [
  sse(
    'message_start',
    '{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-upstream","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}',
  ),
  sse(
    'content_block_start',
    '{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}',
  ),
  sse('content_block_delta', COMPACT_DELTAS[0]),
  sse('content_block_delta', COMPACT_DELTAS[1]),
  sse('content_block_stop', '{"type":"content_block_stop","index":0}'),
  sse(
    'content_block_start',
    '{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}',
  ),
  sse('content_block_delta', COMPACT_DELTAS[2]),
  sse('content_block_delta', COMPACT_DELTAS[3]),
  sse('content_block_delta', SPACED_DELTA),
];
const TAIL = [
  sse('content_block_stop', '{"type":"content_block_stop","index":1}'),
  sse(
    'message_delta',
    '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}',
  ),
  sse('message_stop', '{"type":"message_stop"}'),
];

/**
 * A native Messages stream (Messages in, an anthropic deployment): its content deltas name no model
 * and carry no usage, so they are passed on as the upstream wrote them, unparsed
 * (docs/decisions/hot-path.md, Native Messages deltas not parsed); billing reads their text.
 */
describe('native Messages stream deltas', () => {
  let scripted: ScriptedStreamGateway;
  before(async () => {
    scripted = await startScriptedStreamGateway(
      {
        whole: { text: [...HEAD, ...TAIL].join('') },
        // The deltas, then the connection is gone: no message_delta with the output's usage.
        cut: { text: HEAD.join(''), cut: true },
      },
      { provider: 'anthropic', upstreamModel: 'claude-upstream' },
    );
  });
  after(() => scripted?.close());

  function stream(model: string, key: string): Promise<Response> {
    return fetch(`${scripted.gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({
        model,
        max_tokens: 64,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
  }

  it('passes each compact delta on as the upstream wrote it, and rewrites any other', async () => {
    const answer = await stream('whole', scripted.gw.masterKey);
    const text = await answer.text();
    assert.equal(answer.status, 200, text);
    for (const delta of COMPACT_DELTAS) assert.ok(text.includes(sse('content_block_delta', delta)), delta);
    assert.ok(!text.includes(SPACED_DELTA));
    assert.ok(text.includes(sse('content_block_delta', JSON.stringify(JSON.parse(SPACED_DELTA)))));
    assert.ok(text.includes('"model":"whole"') && !text.includes('claude-upstream'));
  });

  it('gives the official client the whole message', async () => {
    const message = await anthropicClient(scripted.gw, scripted.gw.masterKey)
      .messages.stream({ model: 'whole', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage();
    assert.deepEqual(
      message.content.map((block) => (block.type === 'text' ? block.text : block.type)),
      ['thinking', 'Hello, été "quoted"\n!'],
    );
    assert.equal(message.usage.output_tokens, 9);
  });

  it("bills a stream cut before its usage for the deltas' text, read without parsing them", async () => {
    // Five input tokens from message_start, the output counted from the thinking and text deltas.
    const expected = 5 + countOutputTokens(TEXTS.join(''));
    assert.deepEqual(await scripted.recordedCost((key) => stream('cut', key)), { calls: 1, cents: expected });
  });
});
