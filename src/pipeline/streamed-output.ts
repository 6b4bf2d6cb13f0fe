import { countOutputTokens, estimateInputTokens } from '../catalog/estimate-tokens.ts';
import type { Operation, StreamEvent, Usage } from '../providers/types.ts';
import { type CallContext, estimatedInputTokensOf } from './call-context.ts';
import { isRecord } from './public-model.ts';

/** Generated text of one chat chunk: content, refusal, reasoning and tool-call deltas. */
function chatText(data: Record<string, unknown>, texts: string[]): void {
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

/** Generated text of one Messages event: text, thinking and tool-input deltas. */
function messagesText(data: Record<string, unknown>, texts: string[]): void {
  const delta = data.type === 'content_block_delta' ? data.delta : undefined;
  if (!isRecord(delta)) return;
  for (const field of ['text', 'thinking', 'partial_json']) {
    const text = delta[field];
    if (typeof text === 'string') texts.push(text);
  }
}

/** Generated text of one Responses event: every `*.delta` event's string delta. */
function responsesText(data: Record<string, unknown>, texts: string[]): void {
  if (typeof data.type === 'string' && data.type.endsWith('.delta') && typeof data.delta === 'string') {
    texts.push(data.delta);
  }
}

const TEXT_OF: Readonly<Partial<Record<Operation, typeof chatText>>> = Object.freeze({
  'chat.completions': chatText,
  messages: messagesText,
  responses: responsesText,
});

/**
 * The text a stream delivered, kept (as the strings the events already hold) so that a call whose
 * upstream never reported its usage, or whose client left before it came, is billed for what was
 * streamed (issue 19): the text is tokenised only then.
 */
export class StreamedOutput {
  readonly #textOf: typeof chatText | undefined;
  readonly #texts: string[] = [];

  constructor(operation: Operation) {
    this.#textOf = TEXT_OF[operation];
  }

  observe(events: readonly StreamEvent[]): void {
    const textOf = this.#textOf;
    if (textOf === undefined) return;
    for (const event of events) if (isRecord(event.data)) textOf(event.data, this.#texts);
  }

  /**
   * The usage to bill: the upstream's when the stream ended whole with it; otherwise its counts
   * where it gave them, the output at least the tokens counted from the streamed text, and the
   * input estimated when it gave none.
   */
  usage(ctx: CallContext, reported: Usage | null, complete: boolean): Usage | null {
    if (complete && reported !== null) return reported;
    if (ctx.servedBy === null) return reported;
    const counted = this.#texts.length === 0 ? 0 : countOutputTokens(this.#texts.join(''));
    return {
      ...reported,
      inputTokens: reported?.inputTokens || estimatedInputTokensOf(ctx, estimateInputTokens),
      outputTokens: Math.max(reported?.outputTokens ?? 0, counted),
    };
  }
}
