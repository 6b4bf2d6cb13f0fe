/**
 * The Chat Completions format (OpenAI API reference, "Chat Completions"): the `chat.completions`
 * operation's wire format, which every provider serving chat reads and writes.
 */
import type { GatewayError } from '../../errors/gateway-error.ts';
import { renderErrorBody, type UpstreamErrorMessages } from '../../errors/render-error.ts';
import type { ClientFormat } from '../format.ts';
import type { StreamEvent } from '../stream-event.ts';
import { ChatCompletionAssembler } from './assembly.ts';
import { chatCompletionsBody } from './body-schema.ts';
import { capabilitiesUsed } from './capabilities.ts';
import { streamedText } from './chunks.ts';
import { replayChatCompletion } from './replay.ts';

export const chatCompletionsFormat: ClientFormat = Object.freeze({
  operation: 'chat.completions',
  errorShape: 'openai',
  bodySchema: chatCompletionsBody,
  capabilitiesUsed,
  createAssembler: () => new ChatCompletionAssembler(),
  replay: replayChatCompletion,
  /** Every chunk carries the answer's top-level `model`. */
  streamedText,
  /** An `error` object in a data event. */
  errorEvent(error: GatewayError, messages: UpstreamErrorMessages = 'generic'): StreamEvent {
    return { data: renderErrorBody(error, 'openai', messages) };
  },
});
