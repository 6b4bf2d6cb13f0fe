/**
 * The Chat Completions format (OpenAI API reference, "Chat Completions"): the `chat.completions`
 * operation's wire format, which every provider serving chat reads and writes.
 */
import type { GatewayError } from '../../errors/gateway-error.ts';
import { renderErrorBody, type UpstreamErrorMessages } from '../../errors/render-error.ts';
import type { ClientFormat } from '../format.ts';
import { isRecord, type Json } from '../json.ts';
import type { StreamEvent } from '../stream-event.ts';
import { ChatCompletionAssembler } from './assembly.ts';
import { chatCompletionsBody } from './body-schema.ts';
import { capabilitiesUsed } from './capabilities.ts';
import { replayChatCompletion } from './replay.ts';

/** Generated text of one chat chunk: content, refusal, reasoning and tool-call deltas. */
function streamedText(data: Readonly<Json>, texts: string[]): void {
  if (!Array.isArray(data.choices)) return;
  for (const choice of data.choices) {
    const delta = isRecord(choice) ? choice.delta : undefined;
    if (!isRecord(delta)) continue;
    for (const field of ['content', 'refusal', 'reasoning_content', 'reasoning']) {
      const text = delta[field];
      if (typeof text === 'string') texts.push(text);
    }
    if (!Array.isArray(delta.tool_calls)) continue;
    for (const call of delta.tool_calls) {
      const fn = isRecord(call) ? call.function : undefined;
      if (isRecord(fn) && typeof fn.arguments === 'string') texts.push(fn.arguments);
    }
  }
}

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
