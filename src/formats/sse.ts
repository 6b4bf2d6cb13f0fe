import type { StreamEvent } from './stream-event.ts';

/** The `[DONE]` sentinel OpenAI sends as the last data line of a stream. */
export const SSE_DONE = '[DONE]' as const;

/** Serialises one event in an endpoint's format; `data` is JSON-encoded unless it is `[DONE]`. */
export function formatSseEvent(event: StreamEvent): string {
  const data = event.data === SSE_DONE ? SSE_DONE : JSON.stringify(event.data);
  return event.event === undefined ? `data: ${data}\n\n` : `event: ${event.event}\ndata: ${data}\n\n`;
}
