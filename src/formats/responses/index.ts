/**
 * The Responses format (OpenAI API reference, "Responses"): served natively by OpenAI and through
 * the Chat translator elsewhere.
 */
import type { GatewayError } from '../../errors/gateway-error.ts';
import { renderErrorBody, type UpstreamErrorMessages } from '../../errors/render-error.ts';
import type { ClientFormat } from '../format.ts';
import { isRecord, type Json, setModel } from '../json.ts';
import type { StreamEvent } from '../stream-event.ts';
import { ResponseAssembler } from './assembly.ts';
import { responsesBody } from './body-schema.ts';
import { capabilitiesUsed } from './capabilities.ts';
import { replayResponse } from './replay.ts';

/** Generated text of one Responses event: every `*.delta` event's string delta. */
function streamedText(data: Readonly<Json>, texts: string[]): void {
  if (typeof data.type === 'string' && data.type.endsWith('.delta') && typeof data.delta === 'string') {
    texts.push(data.delta);
  }
}

export const responsesFormat: ClientFormat = Object.freeze({
  operation: 'responses',
  errorShape: 'openai',
  bodySchema: responsesBody,
  capabilitiesUsed,
  createAssembler: () => new ResponseAssembler(),
  replay: (answer: unknown) => replayResponse(answer),
  /** The `response.*` events (`response.created`, `.in_progress`, `.completed`, ...) carry it in `response`. */
  eventWithPublicModel(event: StreamEvent, model: string): StreamEvent {
    const data = event.data;
    if (isRecord(data) && typeof data.type === 'string' && data.type.startsWith('response.')) {
      setModel(data.response, model);
    }
    return event;
  },
  streamedText,
  /** An `error` object in a data event. */
  errorEvent(error: GatewayError, messages: UpstreamErrorMessages = 'generic'): StreamEvent {
    return { data: renderErrorBody(error, 'openai', messages) };
  },
});
