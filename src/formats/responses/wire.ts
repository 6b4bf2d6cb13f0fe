/**
 * Responses API wire types (API reference, "Responses": create, the response object, streaming
 * events). Requests are typed for the translators; answers and events are validated loosely.
 */
import { z } from 'zod';

export interface ResponsesInputText {
  type: 'input_text';
  text: string;
}
export interface ResponsesInputImage {
  type: 'input_image';
  image_url?: string | null;
  file_id?: string | null;
  detail?: 'low' | 'high' | 'auto';
}
export interface ResponsesOutputText {
  type: 'output_text';
  text: string;
  annotations?: unknown[];
}
export type ResponsesContentPart =
  | ResponsesInputText
  | ResponsesInputImage
  | ResponsesOutputText
  | { type: 'refusal'; refusal: string }
  | { type: 'input_file'; [key: string]: unknown };

export interface ResponsesMessageItem {
  type?: 'message';
  role: 'user' | 'assistant' | 'system' | 'developer';
  content: string | ResponsesContentPart[];
  id?: string;
  status?: string;
}
export interface ResponsesFunctionCallItem {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
  /** The `namespace` tool the function belongs to, when it is in one. */
  namespace?: string | null;
  id?: string;
  status?: string;
}
/** A call of a `custom` tool: freeform text input, no JSON arguments. */
export interface ResponsesCustomToolCallItem {
  type: 'custom_tool_call';
  call_id: string;
  name: string;
  input: string;
  namespace?: string | null;
  id?: string;
}
export interface ResponsesFunctionCallOutputItem {
  type: 'function_call_output';
  call_id: string;
  output: string | ResponsesContentPart[];
  id?: string;
}
export type ResponsesInputItem =
  | ResponsesMessageItem
  | ResponsesFunctionCallItem
  | ResponsesCustomToolCallItem
  | ResponsesFunctionCallOutputItem
  | { type: 'reasoning' | 'item_reference' | string; [key: string]: unknown };

export interface ResponsesFunctionTool {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
}

export type ResponsesTextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      name: string;
      schema: Record<string, unknown>;
      strict?: boolean | null;
      description?: string;
    };

/** The create body; only the fields the gateway reads or writes are named. */
export interface ResponsesRequest {
  model: string;
  input?: string | ResponsesInputItem[];
  instructions?: string | null;
  stream?: boolean | null;
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  tools?: Array<ResponsesFunctionTool | { type: string; [key: string]: unknown }>;
  tool_choice?:
    | 'none'
    | 'auto'
    | 'required'
    | { type: 'function'; name: string }
    | { type: string; [key: string]: unknown };
  parallel_tool_calls?: boolean | null;
  text?: { format?: ResponsesTextFormat; verbosity?: string | null } | null;
  reasoning?: { effort?: string | null; summary?: string | null } | null;
  store?: boolean | null;
  metadata?: Record<string, string> | null;
  previous_response_id?: string | null;
  user?: string;
  [key: string]: unknown;
}

export const responsesUsageSchema = z.looseObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number(),
  input_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
  output_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
});

export const responseObjectSchema = z.looseObject({
  id: z.string(),
  object: z.literal('response'),
  created_at: z.number(),
  status: z.string().nullish(),
  model: z.string(),
  output: z.array(z.looseObject({ type: z.string() })),
  error: z.looseObject({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
  usage: responsesUsageSchema.nullish(),
});
export type ResponseObject = z.infer<typeof responseObjectSchema>;

/** Every streaming event carries its `type` (also the SSE event name) and a `sequence_number`. */
export const responsesStreamEventSchema = z.looseObject({
  type: z.string(),
  sequence_number: z.number().optional(),
  response: responseObjectSchema.optional(),
  code: z.string().nullish(),
  message: z.string().nullish(),
});
export type ResponsesStreamEvent = z.infer<typeof responsesStreamEventSchema>;
