import { randomUUID } from 'node:crypto';

/** What names an answer an adapter builds from another format: its id, model and creation time. */
export interface ChatCompletionIdentity {
  id: string;
  model: string;
  /** Unix seconds. */
  created: number;
}

/** `chatcmpl-` and the upstream's answer id when it gave one, else a random one. */
export function newChatCompletionIdentity(
  model: string,
  now: Date,
  upstreamId?: string,
): ChatCompletionIdentity {
  return {
    id: `chatcmpl-${upstreamId ?? randomUUID().replaceAll('-', '')}`,
    model,
    created: Math.floor(now.getTime() / 1000),
  };
}
