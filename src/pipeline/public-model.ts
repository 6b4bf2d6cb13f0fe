/**
 * Answers name the public model the client asked for, never the upstream's (a deployment's
 * upstream model is configuration the client has no business seeing). Where each wire format
 * carries the model:
 *
 *   Chat Completions, Embeddings, Responses, Messages answers: top-level `model`
 *   stream events: named by the provider's stream decoder as it reads them (StreamDecoderCall)
 *
 * Images and transcriptions carry no model. Objects are changed in place: the answer was parsed
 * (or built) for this call alone.
 */
import { setModel } from '../formats/json.ts';

/** Puts `model` in a JSON answer (a text answer passes as it is). */
export function withPublicModel<Answer>(answer: Answer, model: string): Answer {
  setModel(answer, model);
  return answer;
}
