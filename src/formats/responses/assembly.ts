/**
 * The Responses assembler: the terminal event carries the whole response, which is the answer a
 * plain call would have received.
 */

import { isRecord } from '../json.ts';
import { type Progress, StreamAssembler } from '../stream-assembler.ts';
import type { StreamEvent } from '../stream-event.ts';
import { type ResponseObject, responseObjectSchema } from './wire.ts';

/** Events that end a stream with its answer (API reference, "Streaming events"). */
const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete']);
/** Events that end it without one. */
const FAILURE_EVENTS: ReadonlySet<string> = new Set(['response.failed', 'error']);

export class ResponseAssembler extends StreamAssembler {
  #response: ResponseObject | null = null;

  protected apply(event: StreamEvent): Progress {
    const data = event.data;
    // The gateway's own error event (`{ error }`, OpenAI's shape) has no type.
    if (!isRecord(data) || typeof data.type !== 'string' || FAILURE_EVENTS.has(data.type)) return 'failed';
    if (!TERMINAL_EVENTS.has(data.type)) return 'open';
    // Once per stream: the stored answer must be a response a plain call could have received.
    if (!responseObjectSchema.safeParse(data.response).success) return 'failed';
    this.#response = data.response as ResponseObject;
    return 'complete';
  }

  protected build(): ResponseObject | null {
    return this.#response;
  }
}
