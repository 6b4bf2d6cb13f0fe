/**
 * Bedrock Runtime Converse / ConverseStream wire shapes (Amazon Bedrock API Reference: Converse,
 * ConverseStream, ContentBlock, ToolConfiguration, TokenUsage, ConverseStreamOutput). Requests are
 * plain types (we build them); answers are zod schemas (we validate what comes back).
 */
import { z } from 'zod';

export type BedrockImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export type BedrockContentBlock =
  | { text: string }
  /** `bytes` is base64 in the JSON protocol. */
  | { image: { format: BedrockImageFormat; source: { bytes: string } } }
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

export interface BedrockToolConfig {
  tools: Array<{ toolSpec: { name: string; description?: string; inputSchema: { json: unknown } } }>;
  toolChoice?: BedrockToolChoice;
}

export interface BedrockConverseRequest {
  messages: BedrockMessage[];
  system?: Array<{ text: string }>;
  inferenceConfig?: BedrockInferenceConfig;
  toolConfig?: BedrockToolConfig;
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

export const bedrockConverseResponseSchema = z
  .object({
    output: z.object({
      message: z.object({
        role: z.string(),
        content: z.array(
          z.object({ text: z.string().optional(), toolUse: toolUseSchema.optional() }).loose(),
        ),
      }),
    }),
    stopReason: z.string(),
    usage: bedrockTokenUsageSchema.optional(),
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
        .object({ text: z.string().optional(), toolUse: z.object({ input: z.string() }).loose().optional() })
        .loose(),
    })
    .loose(),
  contentBlockStop: z.object({ contentBlockIndex: z.number().int() }).loose(),
  messageStop: z.object({ stopReason: z.string() }).loose(),
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
