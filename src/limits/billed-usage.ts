/**
 * The usage a call is billed (issue 19: an upstream's usage is not trusted blindly): decided on
 * the answer (meterUsage: the upstream's, else the answer's counted text), then kept within the
 * served model's bounds when the call is settled (clampUsage, settle-observer.ts).
 */
import { countOutputTokens, estimateInputTokens } from '../formats/estimate-tokens.ts';
import type { ClientFormat } from '../formats/format.ts';
import { isRecord } from '../formats/json.ts';
import { UnparsedEvent } from '../formats/sse.ts';
import type { AttemptResult } from '../pipeline/attempt-result.ts';
import { type CallContext, estimatedInputTokensOf } from '../pipeline/call-context.ts';
import type { AnswerStage } from '../pipeline/stage.ts';
import type { StreamEvent, Usage } from '../providers/types.ts';
import type { TokenLimits } from './cost.ts';

type StreamResult = Extract<AttemptResult, { kind: 'stream' }>;

/**
 * The answer stage that decides the usage a call is billed (`ctx.usage`, which settlement and the
 * records read): the upstream's when it reported it, else what the answer's text counts. It runs
 * first, on the answer as the upstream gave it, so an answer a later stage refuses (an extension's
 * `afterUpstream`, a stored response that cannot be written) is billed all the same: the upstream
 * was paid. The HTTP layer only writes.
 */
export const meterUsage: AnswerStage = {
  name: 'limits.meter',
  run: (ctx, result) => {
    if (result.kind === 'json') {
      ctx.usage = result.usage ?? countedAnswerUsage(ctx, result.answer);
      return result;
    }
    const format = ctx.endpoint.format;
    // Only a format's endpoints are streamable (Endpoint.streamable), so a stream always has one.
    if (format === undefined) throw new Error(`${ctx.endpoint.path} has no stream format`);
    return { ...result, events: metered(ctx, result, new StreamedOutput(format)) };
  },
};

/**
 * Passes the stream on, keeping its text; once it ended, whole, broken or left by its client
 * (the HTTP layer reads an upstream to its end either way), sets the usage to bill.
 */
async function* metered(
  ctx: CallContext,
  stream: StreamResult,
  output: StreamedOutput,
): AsyncGenerator<readonly StreamEvent[]> {
  let complete = false;
  try {
    for await (const batch of stream.events) {
      output.observe(batch);
      yield batch;
    }
    complete = true;
  } finally {
    ctx.usage = output.usage(ctx, stream.usage(), complete);
  }
}

/**
 * The text a stream delivered, kept (as the strings the events already hold) so that a call whose
 * upstream never reported its usage, or whose client left before it came, is billed for what was
 * streamed (issue 19): the text is tokenised only then.
 */
class StreamedOutput {
  readonly #textOf: ClientFormat['streamedText'];
  readonly #texts: string[] = [];

  constructor(format: ClientFormat) {
    this.#textOf = format.streamedText;
  }

  observe(events: readonly StreamEvent[]): void {
    const textOf = this.#textOf;
    for (const event of events) {
      // An event passed on unparsed carries its text already: reading its data would parse it.
      if (event instanceof UnparsedEvent) this.#texts.push(event.generatedText);
      else if (isRecord(event.data)) textOf(event.data, this.#texts);
    }
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

/**
 * The usage to bill for a JSON answer whose upstream reported none (issue 30: it was billed 0):
 * the answer's text counted as if it had been streamed, the input estimated. Null for an answer
 * the endpoint's format cannot read (no format, not an object), which stays unbilled.
 */
function countedAnswerUsage(ctx: CallContext, answer: unknown): Usage | null {
  const format = ctx.endpoint.format;
  if (format === undefined || ctx.servedBy === null || !isRecord(answer)) return null;
  const events = format.replay(answer, ctx.body);
  if (events === null) return null;
  const output = new StreamedOutput(format);
  output.observe(events);
  return output.usage(ctx, null, false);
}

/**
 * Most tokens one count of a call may claim when the catalog knows neither the model's context
 * window nor its output limit: ten million, beyond any model's window, so only garbage is cut.
 */
export const UNKNOWN_MODEL_TOKEN_BOUND = 10_000_000;

const TOKEN_FIELDS = ['inputTokens', 'outputTokens', 'cachedInputTokens'] as const;

/** A clamped field: what the upstream reported and what was kept. */
export interface ClampedCount {
  field: string;
  reported: unknown;
  kept: number;
}

/**
 * The most tokens one count may claim on a model: its context window plus its output limit (the
 * window again when the output limit is unknown), since no call can use more.
 */
export function tokenBound(limits: TokenLimits): number {
  if (limits.contextWindow === null) return UNKNOWN_MODEL_TOKEN_BOUND;
  return limits.contextWindow + (limits.maxOutputTokens ?? limits.contextWindow);
}

function bounded(value: unknown, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return 0;
  return Math.min(value, max);
}

/**
 * An upstream's usage made safe to bill (issue 19: usage is not trusted blindly): token counts
 * that are negative, not finite, or above the model's bound are clamped into [0, bound]; images
 * and audio seconds are kept only when finite and non-negative. Returns the usage to keep and what
 * was changed (empty for an honest upstream, which is then returned as it is).
 */
export function clampUsage(usage: Usage, limits: TokenLimits): { usage: Usage; clamped: ClampedCount[] } {
  const max = tokenBound(limits);
  const clamped: ClampedCount[] = [];
  const kept: Usage = { ...usage };
  for (const field of TOKEN_FIELDS) {
    const reported = usage[field];
    if (reported === undefined && field === 'cachedInputTokens') continue;
    const value = bounded(reported, max);
    if (value !== reported) clamped.push({ field, reported, kept: value });
    kept[field] = value;
  }
  for (const field of ['images', 'audioSeconds'] as const) {
    const reported = usage[field];
    if (reported === undefined) continue;
    const value = bounded(reported, Number.MAX_SAFE_INTEGER);
    if (value !== reported) clamped.push({ field, reported, kept: value });
    kept[field] = value;
  }
  if ((kept.cachedInputTokens ?? 0) > kept.inputTokens) {
    clamped.push({ field: 'cachedInputTokens', reported: kept.cachedInputTokens, kept: kept.inputTokens });
    kept.cachedInputTokens = kept.inputTokens;
  }
  return clamped.length === 0 ? { usage, clamped } : { usage: kept, clamped };
}
