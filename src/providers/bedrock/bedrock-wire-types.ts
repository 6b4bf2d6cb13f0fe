/**
 * Bedrock Runtime Converse / ConverseStream wire shapes (Amazon Bedrock API Reference: Converse,
 * ConverseStream, ContentBlock, ToolConfiguration, TokenUsage, ConverseStreamOutput). Requests are
 * plain types (we build them); answers are zod schemas (we validate what comes back).
 */
import { z } from 'zod';

export type BedrockImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';
export type BedrockDocumentFormat = 'pdf' | 'csv' | 'doc' | 'docx' | 'xls' | 'xlsx' | 'html' | 'txt' | 'md';

/** A prompt-cache checkpoint: what precedes it is cached (CachePointBlock; `ttl` 5m or 1h). */
export interface BedrockCachePoint {
  cachePoint: { type: 'default'; ttl?: '5m' | '1h' };
}

export type BedrockContentBlock =
  | { text: string }
  /** `bytes` is base64 in the JSON protocol. */
  | { image: { format: BedrockImageFormat; source: { bytes: string } } }
  | { document: { format: BedrockDocumentFormat; name: string; source: { bytes: string } } }
  /** Claude's earlier thinking, sent back as it came (with its signature) ahead of its tool calls. */
  | {
      reasoningContent: { reasoningText: { text: string; signature: string } } | { redactedContent: string };
    }
  | BedrockCachePoint
  | { toolUse: { toolUseId: string; name: string; input: unknown } }
  | {
      toolResult: {
        toolUseId: string;
        content: Array<{ text: string }>;
        status?: 'success' | 'error';
      };
    };

export interface BedrockMessage {
  role: 'user' | 'assistant';
  content: BedrockContentBlock[];
}

export interface BedrockInferenceConfig {
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
}

export type BedrockToolChoice =
  | { auto: Record<string, never> }
  | { any: Record<string, never> }
  | { tool: { name: string } };

export interface BedrockToolSpec {
  toolSpec: { name: string; description?: string; inputSchema: { json: unknown } };
}

export interface BedrockToolConfig {
  tools: Array<BedrockToolSpec | BedrockCachePoint>;
  toolChoice?: BedrockToolChoice;
}

export type BedrockSystemBlock = { text: string } | BedrockCachePoint;

/** OutputConfig: native structured output (`schema` is the JSON Schema as a string). */
export interface BedrockOutputConfig {
  textFormat: {
    type: 'json_schema';
    structure: { jsonSchema: { schema: string; name?: string; description?: string } };
  };
}

export interface BedrockConverseRequest {
  messages: BedrockMessage[];
  system?: BedrockSystemBlock[];
  inferenceConfig?: BedrockInferenceConfig;
  toolConfig?: BedrockToolConfig;
  /** Fields of the model's native request Converse has no member for (Claude: `thinking`, `tool_choice`). */
  additionalModelRequestFields?: Record<string, unknown>;
  /**
   * JSON Pointers to fields of the model's native answer Converse has no member for, returned in
   * `additionalModelResponseFields` (a path the model's answer lacks is ignored): `/stop_sequence`,
   * Claude's matched stop sequence.
   */
  additionalModelResponseFieldPaths?: string[];
  outputConfig?: BedrockOutputConfig;
}

export const bedrockTokenUsageSchema = z
  .object({
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    totalTokens: z.number().int().nonnegative().optional(),
    cacheReadInputTokens: z.number().int().nonnegative().optional(),
    cacheWriteInputTokens: z.number().int().nonnegative().optional(),
  })
  .loose();
export type BedrockTokenUsage = z.infer<typeof bedrockTokenUsageSchema>;

const toolUseSchema = z.object({ toolUseId: z.string(), name: z.string(), input: z.unknown() }).loose();

/** ReasoningContentBlock: readable reasoning (with Claude's signature) or encrypted, redacted reasoning. */
const reasoningContentSchema = z
  .object({
    reasoningText: z.object({ text: z.string(), signature: z.string().optional() }).loose().optional(),
    redactedContent: z.string().optional(),
  })
  .loose();

export const bedrockConverseResponseSchema = z
  .object({
    output: z.object({
      message: z.object({
        role: z.string(),
        content: z.array(
          z
            .object({
              text: z.string().optional(),
              toolUse: toolUseSchema.optional(),
              reasoningContent: reasoningContentSchema.optional(),
            })
            .loose(),
        ),
      }),
    }),
    stopReason: z.string(),
    usage: bedrockTokenUsageSchema.optional(),
    additionalModelResponseFields: z.record(z.string(), z.unknown()).nullish(),
  })
  .loose();
export type BedrockConverseResponse = z.infer<typeof bedrockConverseResponseSchema>;

/** Payloads of the ConverseStream events, keyed by the `:event-type` header. */
export const bedrockStreamEventSchemas = {
  messageStart: z.object({ role: z.string() }).loose(),
  contentBlockStart: z
    .object({
      contentBlockIndex: z.number().int(),
      start: z
        .object({ toolUse: z.object({ toolUseId: z.string(), name: z.string() }).loose().optional() })
        .loose(),
    })
    .loose(),
  contentBlockDelta: z
    .object({
      contentBlockIndex: z.number().int(),
      delta: z
        .object({
          text: z.string().optional(),
          toolUse: z.object({ input: z.string() }).loose().optional(),
          reasoningContent: z
            .object({
              text: z.string().optional(),
              signature: z.string().optional(),
              redactedContent: z.string().optional(),
            })
            .loose()
            .optional(),
        })
        .loose(),
    })
    .loose(),
  contentBlockStop: z.object({ contentBlockIndex: z.number().int() }).loose(),
  messageStop: z
    .object({
      stopReason: z.string(),
      additionalModelResponseFields: z.record(z.string(), z.unknown()).nullish(),
    })
    .loose(),
  metadata: z.object({ usage: bedrockTokenUsageSchema.optional() }).loose(),
} as const;
export type BedrockStreamEventType = keyof typeof bedrockStreamEventSchemas;
export type BedrockStreamEvent<T extends BedrockStreamEventType> = z.infer<
  (typeof bedrockStreamEventSchemas)[T]
>;

/** Error answers: JSON `{ message }` (some services spell it `Message`), the type in `x-amzn-errortype`. */
export const bedrockErrorBodySchema = z
  .object({ message: z.string().optional(), Message: z.string().optional(), __type: z.string().optional() })
  .loose();
