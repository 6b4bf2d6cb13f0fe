/**
 * Drives a StreamDecoder as the pipeline does, over recorded bytes or a received body, for tests of
 * the decoders and of the adapters against the fakes. Not a fake itself: a test helper beside them.
 */
import type { StreamDecoder, StreamEvent } from '../../src/providers/types.ts';

/** Pushes `bytes` in pieces cut at the `cuts` offsets (in any order), then finishes. */
export function decodeAll(decoder: StreamDecoder, bytes: Uint8Array, cuts: number[] = []): StreamEvent[] {
  const events: StreamEvent[] = [];
  let start = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    events.push(...decoder.push(bytes.subarray(start, cut)));
    start = cut;
  }
  events.push(...decoder.push(bytes.subarray(start)));
  events.push(...decoder.finish());
  return events;
}

/** Pushes a received body chunk by chunk as it arrives, then finishes. */
export async function decodeBody(
  decoder: StreamDecoder,
  body: AsyncIterable<unknown>,
): Promise<StreamEvent[]> {
  const { events, failure } = await decodeBodySettled(decoder, body);
  if (failure !== null) throw failure;
  return events;
}

/** The same, keeping what was decoded before a failure: the events, and the error (null if none). */
export async function decodeBodySettled(
  decoder: StreamDecoder,
  body: AsyncIterable<unknown>,
): Promise<{ events: StreamEvent[]; failure: unknown }> {
  const events: StreamEvent[] = [];
  try {
    for await (const chunk of body) events.push(...decoder.push(chunk as Uint8Array));
    events.push(...decoder.finish());
  } catch (error) {
    return { events, failure: error };
  }
  return { events, failure: null };
}
