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

/**
 * Prompt-caching breakpoint on a content part or tool (`{type: 'ephemeral', ttl?}`): not OpenAI's,
 * the LiteLLM / OpenRouter convention that carries Anthropic's `cache_control` through Chat.
 */
export type ChatCacheControl = Record<string, unknown>;

export interface ChatTextPart {
  type: 'text';
  text: string;
  cache_control?: ChatCacheControl;
}
export interface ChatImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
  cache_control?: ChatCacheControl;
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
  cache_control?: ChatCacheControl;
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

/**
 * A Claude thinking block kept on a Chat assistant message (LiteLLM's `thinking_blocks`): the
 * signature lets the block go back to Claude on the next turn, as tool use with thinking requires.
 */
export type ChatThinkingBlock =
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'redacted_thinking'; data: string };

export type ChatMessage =
  | { role: 'system' | 'developer'; content: string | ChatTextPart[]; name?: string }
  | { role: 'user'; content: string | ChatContentPart[]; name?: string }
  | {
      role: 'assistant';
      content?: string | Array<ChatTextPart | ChatRefusalPart> | null;
      refusal?: string | null;
      tool_calls?: ChatToolCall[];
      name?: string;
      /** The model's reasoning text (DeepSeek, vLLM and LiteLLM's field; not OpenAI's). */
      reasoning_content?: string | null;
      thinking_blocks?: ChatThinkingBlock[] | null;
    }
  | { role: 'tool'; tool_call_id: string; content: string | ChatTextPart[] }
  /** OpenAI's deprecated function result, before tool calls had ids. */
  | { role: 'function'; name?: string; content: string | ChatTextPart[] };

export interface ChatFunctionTool {
  type: 'function';
  function: {
    name: string;
    description?: string;
    parameters?: Record<string, unknown>;
    strict?: boolean | null;
  };
  cache_control?: ChatCacheControl;
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
  reasoning_effort?: string | null;
  /** Not OpenAI's: vLLM, SGLang, Ollama and other open-weight servers take it (Anthropic's `top_k`). */
  top_k?: number | null;
  [key: string]: unknown;
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/** Token log probabilities of a choice (API reference, "The chat completion object": `logprobs`). */
export interface ChatTokenLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
}
export interface ChatLogprobs {
  content: Array<ChatTokenLogprob & { top_logprobs: ChatTokenLogprob[] }> | null;
  refusal: null;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** `cache_write_tokens`: input written to the prompt cache (OpenRouter's field; Anthropic's cache creation). */
  prompt_tokens_details?: { cached_tokens: number; cache_write_tokens?: number };
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
    message: {
      role: 'assistant';
      content: string | null;
      refusal: null;
      tool_calls?: ChatToolCall[];
      reasoning_content?: string;
      thinking_blocks?: ChatThinkingBlock[];
    };
    logprobs: ChatLogprobs | null;
    finish_reason: ChatFinishReason;
    /** The stop sequence that ended the answer, when the upstream said which (vLLM's field: see stopReasonField). */
    stop_reason?: string;
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
    delta: {
      role?: 'assistant';
      content?: string;
      reasoning_content?: string;
      thinking_blocks?: ChatThinkingBlock[];
      tool_calls?: ChatChunkToolCallDelta[];
    };
    logprobs: ChatLogprobs | null;
    finish_reason: ChatFinishReason | null;
    stop_reason?: string;
  }>;
  usage?: ChatUsage | null;
}

export const usageSchema = z.looseObject({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  prompt_tokens_details: z
    .looseObject({ cached_tokens: z.number().nullish(), cache_write_tokens: z.number().nullish() })
    .nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
});
export type UpstreamChatUsage = z.infer<typeof usageSchema>;

/**
 * Reasoning text beside the answer, from servers that show it: `reasoning_content` (DeepSeek, vLLM
 * before 0.10, SGLang, LiteLLM) or `reasoning` (vLLM 0.10+, OpenRouter, Ollama). Not OpenAI's.
 */
const reasoningFields = {
  reasoning_content: z.string().nullish(),
  reasoning: z.unknown().optional(),
};

/**
 * vLLM's `stop_reason` beside `finish_reason: "stop"`: the stop string that ended the answer (a
 * token id, or null for the end of the text, otherwise). Not OpenAI's; the gateway writes it where
 * an upstream of its own says which stop sequence matched (Bedrock's Converse), so that a Messages
 * client gets `stop_sequence` back.
 */
const stopReasonField = { stop_reason: z.union([z.string(), z.number()]).nullish() };

/** The stop sequence of `requested` that ended a choice, when the upstream said which. */
export function matchedStopString(
  choice: { finish_reason?: string | null; stop_reason?: string | number | null },
  requested: readonly string[] | undefined,
): string | undefined {
  const named = choice.stop_reason;
  if (choice.finish_reason !== 'stop' || typeof named !== 'string') return undefined;
  return requested?.includes(named) ? named : undefined;
}

/** The reasoning text of an upstream message or delta, whichever field carries it. */
export function upstreamReasoningText(message: {
  reasoning_content?: string | null;
  reasoning?: unknown;
}): string {
  if (typeof message.reasoning_content === 'string') return message.reasoning_content;
  return typeof message.reasoning === 'string' ? message.reasoning : '';
}

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
        ...reasoningFields,
      }),
      finish_reason: z.string().nullable(),
      ...stopReasonField,
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
        ...reasoningFields,
      }),
      finish_reason: z.string().nullish(),
      ...stopReasonField,
    }),
  ),
  usage: usageSchema.nullish(),
});
export type UpstreamChatCompletionChunk = z.infer<typeof chatCompletionChunkSchema>;

/** The data of one Chat Completions stream event: a chunk, or the `[DONE]` that ends the stream. */
export type ChatStreamData = UpstreamChatCompletionChunk | '[DONE]';
