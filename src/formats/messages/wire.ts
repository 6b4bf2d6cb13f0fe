/**
 * Messages API wire types (Anthropic API reference, "Messages": create, the message object,
 * "Streaming messages"). Requests are typed for the translators; answers and events are validated
 * loosely: unknown fields and unknown event types pass through, as the reference asks clients to
 * tolerate new ones.
 */
import { z } from 'zod';
import type { StreamEvent } from '../stream-event.ts';

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: unknown;
  citations?: unknown;
}
export interface AnthropicImageBlock {
  type: 'image';
  source:
    | { type: 'base64'; media_type: string; data: string }
    | { type: 'url'; url: string }
    | { type: 'file'; file_id: string };
  cache_control?: unknown;
}
export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
  cache_control?: unknown;
}
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?:
    | string
    | Array<AnthropicTextBlock | AnthropicImageBlock | { type: string; [key: string]: unknown }>;
  is_error?: boolean;
  cache_control?: unknown;
}
export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | { type: 'thinking' | 'redacted_thinking' | 'document' | string; [key: string]: unknown };

export interface AnthropicMessageParam {
  role: 'user' | 'assistant';
  content: string | AnthropicContentBlock[];
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  type?: 'custom' | string | null;
  cache_control?: unknown;
  [key: string]: unknown;
}

export type AnthropicToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

/** The create body; only the fields the gateway reads or writes are named. */
export interface AnthropicMessagesRequest {
  model: string;
  max_tokens: number;
  messages: AnthropicMessageParam[];
  system?: string | AnthropicTextBlock[];
  stop_sequences?: string[];
  stream?: boolean;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  metadata?: { user_id?: string | null };
  output_config?: {
    format?: { type: 'json_schema'; schema: Record<string, unknown> } | null;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export const anthropicUsageSchema = z.looseObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
});
export type AnthropicUsage = z.infer<typeof anthropicUsageSchema>;

const contentBlockSchema = z.looseObject({ type: z.string() });

export const anthropicMessageSchema = z.looseObject({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(contentBlockSchema),
  stop_reason: z.string().nullable(),
  stop_sequence: z.string().nullish(),
  usage: anthropicUsageSchema,
});
export type AnthropicMessage = z.infer<typeof anthropicMessageSchema>;

export const anthropicErrorBodySchema = z.looseObject({
  type: z.literal('error'),
  error: z.looseObject({ type: z.string(), message: z.string().nullish() }),
});
export type AnthropicErrorBody = z.infer<typeof anthropicErrorBodySchema>;

/** The events of a Messages stream, by `type` (also the SSE event name). */
export const anthropicStreamEventSchema = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('message_start'),
    message: anthropicMessageSchema.extend({ usage: anthropicUsageSchema.partial({ output_tokens: true }) }),
  }),
  z.looseObject({
    type: z.literal('content_block_start'),
    index: z.number(),
    content_block: contentBlockSchema,
  }),
  z.looseObject({
    type: z.literal('content_block_delta'),
    index: z.number(),
    delta: z.looseObject({ type: z.string() }),
  }),
  z.looseObject({ type: z.literal('content_block_stop'), index: z.number() }),
  z.looseObject({
    type: z.literal('message_delta'),
    delta: z.looseObject({ stop_reason: z.string().nullish(), stop_sequence: z.string().nullish() }),
    usage: z.looseObject({
      output_tokens: z.number(),
      input_tokens: z.number().nullish(),
      cache_creation_input_tokens: z.number().nullish(),
      cache_read_input_tokens: z.number().nullish(),
    }),
  }),
  z.looseObject({ type: z.literal('message_stop') }),
  z.looseObject({ type: z.literal('ping') }),
  anthropicErrorBodySchema,
]);
export type AnthropicStreamEvent = z.infer<typeof anthropicStreamEventSchema>;

/** A Messages stream event as the gateway writes it: its type is both the SSE event name and `data.type`. */
export function messagesStreamEvent(type: string, fields: Record<string, unknown>): StreamEvent {
  return { event: type, data: { type, ...fields } };
}
