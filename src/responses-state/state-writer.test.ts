import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Logger } from '../diagnostics/logger.ts';
import { UnparsedEvent } from '../formats/sse.ts';
import type { StreamEvent } from '../formats/stream-event.ts';
import { testCallContext, testEndpoint } from '../pipeline/test-support.ts';
import { RESPONSE_CALL_STATE } from './call-state.ts';
import type { NewResponseState, ResponseStateStore } from './state-store.ts';
import { ResponseStateWriter } from './state-writer.ts';

/** A delta passed on unparsed that counts the reads of its data (each one a parse). */
class CountedDelta extends UnparsedEvent {
  reads = 0;

  override get data(): unknown {
    this.reads++;
    return super.data;
  }
}

const response = (status: string) => ({ id: 'resp_upstream', object: 'response', model: 'm', status });

describe('ResponseStateWriter on a stream', () => {
  test("presents the response events as the gateway's, and leaves a delta passed on unparsed unread", async () => {
    const stored: NewResponseState[] = [];
    // The writer calls only insert: the store's database is not needed.
    const store = { insert: async (state: NewResponseState) => void stored.push(state) };
    const writer = new ResponseStateWriter({
      store: store as unknown as ResponseStateStore,
      onWrite: () => {},
      logger: {} as Logger,
    });
    const ctx = testCallContext({
      endpoint: testEndpoint('responses'),
      body: { model: 'm', input: 'hi', stream: true },
    });
    RESPONSE_CALL_STATE.set(ctx, { storeAs: 'resp_gateway', previousResponseId: null });
    const delta = new CountedDelta(
      '{"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[]}',
      'Hi',
      'response.output_text.delta',
    );
    const batches: StreamEvent[][] = [
      [{ event: 'response.created', data: { type: 'response.created', response: response('in_progress') } }],
      [delta],
      [
        {
          event: 'response.completed',
          data: { type: 'response.completed', response: response('completed') },
        },
      ],
    ];
    async function* events() {
      yield* batches;
    }
    const result = await writer.answer(ctx, {
      kind: 'stream',
      events: events(),
      usage: () => null,
      firstByteAtMs: () => null,
    });
    assert.equal(result.kind, 'stream');
    const out: StreamEvent[] = [];
    for await (const batch of result.events) out.push(...batch);
    assert.equal(out[1], delta);
    assert.equal(delta.reads, 0);
    assert.deepEqual(
      [out[0], out[2]].map((event) => (event.data as { response: { id: string } }).response.id),
      ['resp_gateway', 'resp_gateway'],
    );
    assert.deepEqual(
      stored.map((state) => [state.id, state.status]),
      [['resp_gateway', 'completed']],
    );
  });
});
