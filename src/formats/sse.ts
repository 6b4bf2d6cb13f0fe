import { parseJson } from './json.ts';
import type { StreamEvent } from './stream-event.ts';

/** The `[DONE]` sentinel OpenAI sends as the last data line of a stream. */
export const SSE_DONE = '[DONE]' as const;

/**
 * An event whose data a decoder passes on unchanged, with the JSON text the upstream sent for it
 * (the model already renamed): written as that text instead of serialised again
 * (docs/decisions/hot-path.md, Native stream events passed on as text). The text is a private
 * field, so a stage that makes a new event from this one (`{ ...event, data }`) gets a plain
 * event, which is serialised; `data` is never changed in place after its decoder made it.
 */
export class UpstreamTextEvent implements StreamEvent {
  readonly data: unknown;
  readonly #text: string;

  /** `text`: one line of JSON that parses to `data`. */
  constructor(data: unknown, text: string) {
    this.data = data;
    this.#text = text;
  }

  get upstreamText(): string {
    return this.#text;
  }
}

const UNREAD: unique symbol = Symbol('unread');

/**
 * An event of a native stream passed on as the upstream's text (the model already renamed)
 * without being parsed (docs/decisions/hot-path.md, Native chat events not parsed). `data` is
 * parsed from the text the first time a stage reads it (the one answer assembly), and is null when
 * the text is not JSON, which readers skip as they skip any data that is not an object.
 * `generatedText` is the answer text the event carries, what its format's `streamedText` would
 * collect from `data`, read from the text so that billing needs no parse. `data` is not an own
 * property: a stage that makes a new event from this one must name its data.
 */
export class UnparsedEvent implements StreamEvent {
  readonly upstreamText: string;
  readonly generatedText: string;
  /** The SSE event name the format gives it (a Messages stream's `content_block_delta`), if any. */
  readonly event: string | undefined;
  #data: unknown = UNREAD;

  constructor(upstreamText: string, generatedText: string, event?: string) {
    this.upstreamText = upstreamText;
    this.generatedText = generatedText;
    this.event = event;
  }

  get data(): unknown {
    if (this.#data === UNREAD) this.#data = parseJson(this.upstreamText) ?? null;
    return this.#data;
  }
}

/** Serialises one event in an endpoint's format; `data` is JSON-encoded unless it is `[DONE]`. */
export function formatSseEvent(event: StreamEvent): string {
  if (event instanceof UnparsedEvent && event.event !== undefined) {
    return `event: ${event.event}\ndata: ${event.upstreamText}\n\n`;
  }
  if (event instanceof UpstreamTextEvent || event instanceof UnparsedEvent) {
    return `data: ${event.upstreamText}\n\n`;
  }
  const data = event.data === SSE_DONE ? SSE_DONE : JSON.stringify(event.data);
  return event.event === undefined ? `data: ${data}\n\n` : `event: ${event.event}\ndata: ${data}\n\n`;
}
