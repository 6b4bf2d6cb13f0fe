import type { StreamEvent } from '../providers/types.ts';

/**
 * Answers name the public model the client asked for, never the upstream's (a deployment's
 * upstream model is configuration the client has no business seeing). Where each wire format
 * carries the model:
 *
 *   Chat Completions, Embeddings, Responses, Messages answers: top-level `model`
 *   Chat Completions chunks: top-level `model`
 *   Responses events (`response.created`, `.in_progress`, `.completed`, ...): `response.model`
 *   Messages events: `message_start` -> `message.model`
 *
 * Images and transcriptions carry no model. Objects are changed in place: the answer was parsed
 * (or built) for this call alone.
 */
type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function setModel(holder: unknown, model: string): void {
  if (isRecord(holder) && typeof holder.model === 'string') holder.model = model;
}

/** Puts `model` in a JSON answer (a text answer passes as it is). */
export function withPublicModel<Answer>(answer: Answer, model: string): Answer {
  setModel(answer, model);
  return answer;
}

/** Puts `model` in a stream event of any inference format. */
export function eventWithPublicModel(event: StreamEvent, model: string): StreamEvent {
  const data = event.data;
  if (!isRecord(data)) return event;
  setModel(data, model);
  if (data.type === 'message_start') setModel(data.message, model);
  else if (typeof data.type === 'string' && data.type.startsWith('response.')) setModel(data.response, model);
  return event;
}
