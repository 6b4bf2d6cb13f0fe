import type { SseMessage } from '../types.ts';
import { malformedAnswerError } from './upstream-error.ts';

/** The JSON payload of one SSE message; a payload that is not JSON is a malformed upstream answer. */
export function sseJson(message: SseMessage, provider: string): unknown {
  try {
    return JSON.parse(message.data);
  } catch (cause) {
    throw malformedAnswerError(provider, 'stream event', {
      data: message.data.slice(0, 200),
      cause: String(cause),
    });
  }
}
