/**
 * Drives a StreamDecoder as the upstream engine does (upstream/event-reader.ts), over recorded bytes or a received body, for tests of
 * the decoders and of the adapters against the fakes. Not a fake itself: a test helper beside them.
 */
import type { StreamDecoder, StreamEvent } from '../../src/providers/types.ts';
import { type EventReader, eventReaderOf } from '../../src/upstream/event-reader.ts';

/** A decoder, read as the engine reads it; a reader a test made already, as it is. */
const readerOf = (source: StreamDecoder | EventReader): EventReader =>
  'framing' in source ? eventReaderOf(source) : source;

/** Pushes `bytes` in pieces cut at the `cuts` offsets (in any order), then finishes. */
export function decodeAll(
  decoder: StreamDecoder | EventReader,
  bytes: Uint8Array,
  cuts: number[] = [],
): StreamEvent[] {
  const reader = readerOf(decoder);
  const events: StreamEvent[] = [];
  let start = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    events.push(...reader.push(bytes.subarray(start, cut)));
    start = cut;
  }
  events.push(...reader.push(bytes.subarray(start)));
  events.push(...reader.finish());
  return events;
}

/** Pushes a received body chunk by chunk as it arrives, then finishes. */
export async function decodeBody(
  decoder: StreamDecoder | EventReader,
  body: AsyncIterable<unknown>,
): Promise<StreamEvent[]> {
  const { events, failure } = await decodeBodySettled(decoder, body);
  if (failure !== null) throw failure;
  return events;
}

/** The same, keeping what was decoded before a failure: the events, and the error (null if none). */
export async function decodeBodySettled(
  decoder: StreamDecoder | EventReader,
  body: AsyncIterable<unknown>,
): Promise<{ events: StreamEvent[]; failure: unknown }> {
  const reader = readerOf(decoder);
  const events: StreamEvent[] = [];
  try {
    for await (const chunk of body) events.push(...reader.push(chunk as Uint8Array));
    events.push(...reader.finish());
  } catch (error) {
    return { events, failure: error };
  }
  return { events, failure: null };
}
