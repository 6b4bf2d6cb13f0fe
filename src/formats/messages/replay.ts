/**
 * A cached Messages answer replayed as its events (Anthropic API reference, "Streaming messages"),
 * for ClientFormat.replay (index.ts).
 */

import type { Json } from '../json.ts';
import { isRecord } from '../json.ts';
import type { StreamEvent } from '../stream-event.ts';
import { type AnthropicMessage, anthropicMessageSchema, messagesStreamEvent } from './wire.ts';

type ContentBlock = AnthropicMessage['content'][number];

/** A content block as its stream carries it: content_block_start's block, then the deltas that fill it. */
interface BlockStream {
  start: Json;
  deltas: Json[];
}

export function replayMessage(answer: unknown): StreamEvent[] | null {
  if (!anthropicMessageSchema.safeParse(answer).success) return null;
  const message = answer as AnthropicMessage;
  // message_start carries the answer's whole usage: message_delta's counts are cumulative anyway.
  const events = [
    messagesStreamEvent('message_start', {
      message: { ...message, content: [], stop_reason: null, stop_sequence: null },
    }),
  ];
  for (const [index, block] of message.content.entries()) {
    const stream = blockStream(block);
    if (stream === null) return null;
    events.push(messagesStreamEvent('content_block_start', { index, content_block: stream.start }));
    for (const delta of stream.deltas)
      events.push(messagesStreamEvent('content_block_delta', { index, delta }));
    events.push(messagesStreamEvent('content_block_stop', { index }));
  }
  events.push(
    messagesStreamEvent('message_delta', {
      delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence ?? null },
      usage: message.usage,
    }),
    messagesStreamEvent('message_stop', {}),
  );
  return events;
}

/**
 * Text, tool input and thinking start empty and arrive as deltas, as the API streams them; other
 * blocks (redacted_thinking, server tool results, ...) start whole. Null for a block whose fields
 * are not of their type.
 */
function blockStream(block: ContentBlock): BlockStream | null {
  switch (block.type) {
    case 'text': {
      const { text } = block;
      if (typeof text !== 'string') return null;
      return { start: { ...block, text: '' }, deltas: text === '' ? [] : [{ type: 'text_delta', text }] };
    }
    case 'tool_use': {
      const { id, name, input } = block;
      if (typeof id !== 'string' || typeof name !== 'string' || !isRecord(input)) return null;
      return {
        start: { ...block, input: {} },
        deltas: [{ type: 'input_json_delta', partial_json: JSON.stringify(input) }],
      };
    }
    case 'thinking': {
      const { thinking, signature } = block;
      if (typeof thinking !== 'string' || typeof signature !== 'string') return null;
      return {
        start: { ...block, thinking: '', signature: '' },
        deltas: [
          { type: 'thinking_delta', thinking },
          { type: 'signature_delta', signature },
        ],
      };
    }
    default:
      return { start: block, deltas: [] };
  }
}
