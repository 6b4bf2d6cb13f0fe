import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClientFormat } from '../formats/format.ts';
import type { StreamEvent } from '../formats/stream-event.ts';
import type { AttemptResult } from './attempt-result.ts';
import { assembleOnce, whenAssembled } from './stage.ts';
import { testCallContext, testEndpoint } from './test-support.ts';

/** A format whose assembler joins the events' data and counts how many assemblers were made. */
function countingFormat() {
  const made = { assemblers: 0 };
  const format = {
    createAssembler: () => {
      made.assemblers += 1;
      const texts: string[] = [];
      return { push: (event: StreamEvent) => texts.push(String(event.data)), answer: () => texts.join('') };
    },
  } as unknown as ClientFormat; // only createAssembler is read here
  return { made, format };
}

function stream(batches: (readonly StreamEvent[])[], failAfter?: number): AttemptResult {
  async function* events() {
    for (const [index, batch] of batches.entries()) {
      if (index === failAfter) throw new Error('upstream reset');
      yield batch;
    }
  }
  return { kind: 'stream', events: events(), usage: () => null, firstByteAtMs: () => null };
}

async function drain(result: AttemptResult): Promise<void> {
  if (result.kind !== 'stream') return;
  for await (const _batch of result.events);
}

describe('answer assembly', () => {
  it('assembles a stream once for every stage that asked, and tells them in the order they asked', async () => {
    const { made, format } = countingFormat();
    const ctx = testCallContext({ endpoint: { ...testEndpoint('chat.completions'), format } });
    const told: string[] = [];
    whenAssembled(ctx, (answer) => void told.push(`hooks:${answer}`));
    whenAssembled(ctx, (answer) => void told.push(`cache:${answer}`));
    await drain(assembleOnce(ctx, stream([[{ data: 'a' }], [{ data: 'b' }, { data: 'c' }]])));
    assert.equal(made.assemblers, 1);
    assert.deepEqual(told, ['hooks:abc', 'cache:abc']);
  });

  it('leaves a stream nobody asked for untouched', () => {
    const { made, format } = countingFormat();
    const ctx = testCallContext({ endpoint: { ...testEndpoint('chat.completions'), format } });
    const result = stream([[{ data: 'a' }]]);
    assert.equal(assembleOnce(ctx, result), result);
    assert.equal(made.assemblers, 0);
  });

  it('tells nobody of a stream that broke or whose client left', async () => {
    const { format } = countingFormat();
    const broken = testCallContext({ endpoint: { ...testEndpoint('chat.completions'), format } });
    let told = 0;
    whenAssembled(broken, () => void told++);
    await assert.rejects(drain(assembleOnce(broken, stream([[{ data: 'a' }], [{ data: 'b' }]], 1))));
    const controller = new AbortController();
    const left = testCallContext({
      endpoint: { ...testEndpoint('chat.completions'), format },
      signal: controller.signal,
    });
    whenAssembled(left, () => void told++);
    const result = assembleOnce(left, stream([[{ data: 'a' }]]));
    controller.abort();
    await drain(result);
    assert.equal(told, 0);
  });
});
