/**
 * The Responses format (OpenAI API reference, "Responses"): served natively by OpenAI and through
 * the Chat translator elsewhere.
 */
import { randomUUID } from 'node:crypto';
import type { GatewayError } from '../../errors/gateway-error.ts';
import {
  type OpenAIErrorBody,
  renderErrorBody,
  type UpstreamErrorMessages,
} from '../../errors/render-error.ts';
import type { ClientFormat } from '../format.ts';
import type { Json } from '../json.ts';
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
  streamedText,
  /**
   * `response.failed`, the event the API ends a failed response with, its response `failed` with
   * the error's code and message: clients that read typed events (Codex) stop on it and read
   * `response.error`, where an untyped `{error}` chunk is an event they cannot parse.
   */
  errorEvent(error: GatewayError, messages: UpstreamErrorMessages = 'generic'): StreamEvent {
    const { message, code } = (renderErrorBody(error, 'openai', messages) as OpenAIErrorBody).error;
    const response = {
      id: `resp_failed_${randomUUID().replaceAll('-', '')}`,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status: 'failed',
      error: { code, message },
      incomplete_details: null,
      output: [],
      usage: null,
    };
    return { event: 'response.failed', data: { type: 'response.failed', response } };
  },
});
