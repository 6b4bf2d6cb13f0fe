/**
 * The Chat Completions wire format (OpenAI API reference, "Chat Completions": create, the chat
 * completion object, the chunk object): the `chat.completions` operation's format, which every
 * provider serving chat reads and writes, and the translators bridge to.
 *
 * Requests are typed, not validated here: the pipeline has validated the client's body already.
 * Answers come two ways: `ChatCompletion`, `ChatCompletionChunk` and `ChatUsage` are the complete
 * objects an adapter or translator builds; the `Upstream*` types are what a loose validation of
 * someone else's answer guarantees (unknown fields pass through, optional fields may be null).
 */
import { z } from 'zod';

export interface ChatTextPart {
  type: 'text';
  text: string;
}
export interface ChatImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}
export interface ChatRefusalPart {
  type: 'refusal';
  refusal: string;
}
export interface ChatInputAudioPart {
  type: 'input_audio';
  input_audio: { data: string; format: string };
}
export interface ChatFilePart {
  type: 'file';
  file: { file_data?: string; file_id?: string; filename?: string };
}
export type ChatContentPart =
  | ChatTextPart
  | ChatImagePart
  | ChatRefusalPart
  | ChatInputAudioPart
  | ChatFilePart;

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system' | 'developer'; content: string | ChatTextPart[]; name?: string }
  | { role: 'user'; content: string | ChatContentPart[]; name?: string }
  | {
      role: 'assistant';
      content?: string | Array<ChatTextPart | ChatRefusalPart> | null;
      refusal?: string | null;
      tool_calls?: ChatToolCall[];
      name?: string;
    }
  | { role: 'tool'; tool_call_id: string; content: string | ChatTextPart[] };

export interface ChatFunctionTool {
  type: 'function';
  function: {
    name: string;
    description?: string;
    parameters?: Record<string, unknown>;
    strict?: boolean | null;
  };
}

/** `tool_choice` naming one function. */
export interface ChatNamedToolChoice {
  type: 'function';
  function: { name: string };
}

export type ChatToolChoice =
  | 'none'
  | 'auto'
  | 'required'
  | ChatNamedToolChoice
  | { type: string; [key: string]: unknown };

export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: {
        name: string;
        schema?: Record<string, unknown>;
        strict?: boolean | null;
        description?: string;
      };
    };

/** The create body; only the fields the gateway reads or writes are named. */
export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean | null; include_obfuscation?: boolean } | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  n?: number | null;
  stop?: string | string[] | null;
  tools?: Array<ChatFunctionTool | { type: string; [key: string]: unknown }>;
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ChatResponseFormat;
  user?: string;
  [key: string]: unknown;
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
  completion_tokens_details?: { reasoning_tokens: number };
}

/** A chat completion as the gateway writes it. */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: { role: 'assistant'; content: string | null; refusal: null; tool_calls?: ChatToolCall[] };
    logprobs: null;
    finish_reason: ChatFinishReason;
  }>;
  usage: ChatUsage;
}

export interface ChatChunkToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

/** A chat completion chunk as the gateway writes it. */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: { role?: 'assistant'; content?: string; tool_calls?: ChatChunkToolCallDelta[] };
    logprobs: null;
    finish_reason: ChatFinishReason | null;
  }>;
  usage?: ChatUsage | null;
}

const usageSchema = z.looseObject({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  prompt_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
});
export type UpstreamChatUsage = z.infer<typeof usageSchema>;

const toolCallSchema = z.looseObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

export const chatCompletionSchema = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.number(),
      message: z.looseObject({
        role: z.literal('assistant'),
        content: z.string().nullish(),
        refusal: z.string().nullish(),
        tool_calls: z.array(toolCallSchema).nullish(),
      }),
      finish_reason: z.string().nullable(),
    }),
  ),
  usage: usageSchema.nullish(),
});
export type UpstreamChatCompletion = z.infer<typeof chatCompletionSchema>;

const toolCallDeltaSchema = z.looseObject({
  index: z.number(),
  id: z.string().nullish(),
  type: z.literal('function').nullish(),
  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

export const chatCompletionChunkSchema = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion.chunk'),
  created: z.number(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.number(),
      delta: z.looseObject({
        role: z.string().nullish(),
        content: z.string().nullish(),
        refusal: z.string().nullish(),
        tool_calls: z.array(toolCallDeltaSchema).nullish(),
      }),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: usageSchema.nullish(),
});
export type UpstreamChatCompletionChunk = z.infer<typeof chatCompletionChunkSchema>;
