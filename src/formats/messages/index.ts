/**
 * The Messages format (Anthropic API reference, "Messages"): the gateway's own `/v1/messages`
 * surface, which the Anthropic adapter speaks natively and the translators bridge to Chat.
 */
import type { GatewayError } from '../../errors/gateway-error.ts';
import { renderErrorBody, type UpstreamErrorMessages } from '../../errors/render-error.ts';
import type { ClientFormat } from '../format.ts';
import { isRecord, type Json } from '../json.ts';
import type { StreamEvent } from '../stream-event.ts';
import { MessageAssembler } from './assembly.ts';
import { messagesBody } from './body-schema.ts';
import { capabilitiesUsed } from './capabilities.ts';
import { replayMessage } from './replay.ts';

/** Generated text of one Messages event: text, thinking and tool-input deltas. */
function streamedText(data: Readonly<Json>, texts: string[]): void {
  const delta = data.type === 'content_block_delta' ? data.delta : undefined;
  if (!isRecord(delta)) return;
  for (const field of ['text', 'thinking', 'partial_json']) {
    const text = delta[field];
    if (typeof text === 'string') texts.push(text);
  }
}

export const messagesFormat: ClientFormat = Object.freeze({
  operation: 'messages',
  errorShape: 'anthropic',
  bodySchema: messagesBody,
  capabilitiesUsed,
  createAssembler: () => new MessageAssembler(),
  replay: (answer: unknown) => replayMessage(answer),
  /** The model is in `message_start`'s `message`. */
  streamedText,
  /** An `error` event. */
  errorEvent(error: GatewayError, messages: UpstreamErrorMessages = 'generic'): StreamEvent {
    return { event: 'error', data: renderErrorBody(error, 'anthropic', messages) };
  },
});
