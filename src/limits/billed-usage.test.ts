import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { Deployment } from '../deployments/deployment.ts';
import { countOutputTokens } from '../formats/estimate-tokens.ts';
import { UnparsedEvent } from '../formats/sse.ts';
import type { StreamEvent } from '../formats/stream-event.ts';
import type { AttemptResult } from '../pipeline/attempt-result.ts';
import { testCallContext } from '../pipeline/test-support.ts';
import { OpenAIChatStreamDecoder } from '../providers/openai/openai-chat-stream-decoder.ts';
import { eventReaderOf } from '../upstream/event-reader.ts';
import { meterUsage } from './billed-usage.ts';

const textStream = readFileSync(
  new URL('../providers/openai/fixtures/chat-stream-text.sse', import.meta.url),
);
/** The content the recorded stream's chunks carry. */
const TEXT = 'Hello! How can I help you today?';

/** A native chat stream of `bytes` as the attempt hands it on: decoded, usage from the reader. */
function nativeStream(bytes: Buffer): { result: AttemptResult; events: StreamEvent[] } {
  const reader = eventReaderOf(
    new OpenAIChatStreamDecoder({
      provider: 'openai',
      publicModel: 'public-gpt',
      includeUsage: false,
      passedOn: true,
    }),
  );
  const events = reader.push(bytes);
  async function* batches(): AsyncGenerator<readonly StreamEvent[]> {
    yield events;
  }
  const result: AttemptResult = {
    kind: 'stream',
    events: batches(),
    usage: () => reader.usage(),
    firstByteAtMs: () => null,
  };
  return { result, events };
}

async function billed(bytes: Buffer) {
  const ctx = testCallContext({
    body: { model: 'public-gpt', messages: [{ role: 'user', content: 'hi' }], stream: true },
    servedBy: { id: 'dep_1' } as Deployment,
  });
  const { result, events } = nativeStream(bytes);
  const metered = await meterUsage.run(ctx, result, 'route');
  assert.equal(metered.kind, 'stream');
  if (metered.kind === 'stream') for await (const _batch of metered.events);
  return { usage: ctx.usage, unparsed: events.filter((event) => event instanceof UnparsedEvent).length };
}

describe('meterUsage on a native chat stream whose chunks were passed on unparsed', () => {
  test("bills the upstream's usage from the last chunk", async () => {
    const { usage, unparsed } = await billed(textStream);
    assert.ok(unparsed > 0);
    assert.deepEqual(usage, { inputTokens: 9, outputTokens: 9 });
  });

  test('bills the tokens of the streamed text when no usage came', async () => {
    const withoutUsage = textStream.subarray(0, textStream.indexOf('"choices":[],"usage":{'));
    const cut = withoutUsage.subarray(0, withoutUsage.lastIndexOf('\n\n') + 2);
    const { usage, unparsed } = await billed(cut);
    assert.ok(unparsed > 0);
    assert.equal(usage?.outputTokens, countOutputTokens(TEXT));
    assert.ok((usage?.inputTokens ?? 0) > 0, 'input estimated');
  });
});
