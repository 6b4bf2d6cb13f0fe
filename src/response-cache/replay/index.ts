/**
 * A cached answer replayed as the stream a streaming client of its endpoint would have received
 * (DESIGN.md section 5, Response cache): the cache key leaves `stream` out, so an entry stored
 * from a plain call can answer a streamed one. Each text, refusal, tool input or argument string
 * goes out as one delta: a client accumulating deltas ends with exactly the stored answer.
 *
 * The stored answer is checked against the endpoint's wire schema first; an entry of another shape
 * is no answer (null), never an exception, so the call is served from upstream instead.
 *
 * This module picks the operation's replay: chat-completion.ts, message.ts, response.ts.
 */

import { replayChatCompletion } from '../../formats/chat-completions/replay.ts';
import { replayMessage } from '../../formats/messages/replay.ts';
import { replayResponse } from '../../formats/responses/replay.ts';
import type { EndpointBody } from '../../pipeline/endpoint.ts';
import type { StreamEvent } from '../../providers/types.ts';

/** The events of a stream that would have carried `answer`, in the endpoint's format; null when the operation does not stream. */
export function replayAnswerAsEvents(
  operation: string,
  answer: unknown,
  request: EndpointBody,
): StreamEvent[] | null {
  switch (operation) {
    case 'chat.completions':
      return replayChatCompletion(answer, request);
    case 'messages':
      return replayMessage(answer);
    case 'responses':
      return replayResponse(answer);
    default:
      return null;
  }
}
