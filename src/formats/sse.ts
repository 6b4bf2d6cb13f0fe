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

/** Serialises one event in an endpoint's format; `data` is JSON-encoded unless it is `[DONE]`. */
export function formatSseEvent(event: StreamEvent): string {
  if (event instanceof UpstreamTextEvent) return `data: ${event.upstreamText}\n\n`;
  const data = event.data === SSE_DONE ? SSE_DONE : JSON.stringify(event.data);
  return event.event === undefined ? `data: ${data}\n\n` : `event: ${event.event}\ndata: ${data}\n\n`;
}
