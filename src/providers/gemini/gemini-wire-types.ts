/**
 * Gemini API wire shapes (API reference: GenerateContentRequest, Content, Part, Tool, ToolConfig,
 * GenerationConfig, GenerateContentResponse, UsageMetadata, BatchEmbedContentsRequest/Response, and
 * the error body `{ error: { code, message, status, details } }`). Requests are plain types (we build
 * them); answers are zod schemas (we validate what comes back), loose so new fields pass.
 */
import { z } from 'zod';

export type GeminiPart =
  | { text: string; thought?: boolean; thoughtSignature?: string }
  | { inlineData: { mimeType: string; data: string } }
  | { fileData: { mimeType: string; fileUri: string } }
  /** `thoughtSignature` is a sibling of `functionCall` on the part (Gemini API, "Thought signatures"). */
  | { functionCall: { name: string; args: Record<string, unknown> }; thoughtSignature?: string }
  | { functionResponse: { name: string; response: Record<string, unknown> } };

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** The OpenAPI 3.0 subset Gemini takes for function parameters and response schemas. */
export interface GeminiSchema {
  type?: string;
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  enum?: string[];
  properties?: Record<string, GeminiSchema>;
  required?: string[];
  items?: GeminiSchema;
  anyOf?: GeminiSchema[];
  [constraint: string]: unknown;
}

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parameters?: GeminiSchema;
}

export interface GeminiToolConfig {
  functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] };
}

export interface GeminiThinkingConfig {
  thinkingBudget?: number;
  thinkingLevel?: 'minimal' | 'low' | 'medium' | 'high';
  includeThoughts?: boolean;
}

export interface GeminiGenerationConfig {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  candidateCount?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  seed?: number;
  responseMimeType?: string;
  responseSchema?: GeminiSchema;
  responseLogprobs?: boolean;
  logprobs?: number;
  /** `thinkingBudget` (Gemini 2.5) and `thinkingLevel` (Gemini 3) exclude each other. */
  thinkingConfig?: GeminiThinkingConfig;
}

export interface GeminiGenerateContentRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
  tools?: Array<{ functionDeclarations: GeminiFunctionDeclaration[] }>;
  toolConfig?: GeminiToolConfig;
  generationConfig?: GeminiGenerationConfig;
}

export interface GeminiBatchEmbedContentsRequest {
  requests: Array<{
    model: string;
    content: { parts: Array<{ text: string }> };
    outputDimensionality?: number;
  }>;
}

const partSchema = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  functionCall: z
    .looseObject({ name: z.string(), args: z.record(z.string(), z.unknown()).optional() })
    .optional(),
});

export const geminiUsageMetadataSchema = z.looseObject({
  promptTokenCount: z.number().int().nonnegative().optional(),
  candidatesTokenCount: z.number().int().nonnegative().optional(),
  totalTokenCount: z.number().int().nonnegative().optional(),
  cachedContentTokenCount: z.number().int().nonnegative().optional(),
  thoughtsTokenCount: z.number().int().nonnegative().optional(),
  toolUsePromptTokenCount: z.number().int().nonnegative().optional(),
});
export type GeminiUsageMetadata = z.infer<typeof geminiUsageMetadataSchema>;

const logprobsCandidateSchema = z.looseObject({
  token: z.string().optional(),
  logProbability: z.number().optional(),
});

/** LogprobsResult: the chosen token of each step, and the top candidates of each step (same length). */
export const geminiLogprobsResultSchema = z.looseObject({
  topCandidates: z
    .array(z.looseObject({ candidates: z.array(logprobsCandidateSchema).optional() }))
    .optional(),
  chosenCandidates: z.array(logprobsCandidateSchema).optional(),
});
export type GeminiLogprobsResult = z.infer<typeof geminiLogprobsResultSchema>;

export const geminiCandidateSchema = z.looseObject({
  content: z.looseObject({ role: z.string().optional(), parts: z.array(partSchema).optional() }).optional(),
  finishReason: z.string().optional(),
  logprobsResult: geminiLogprobsResultSchema.optional(),
  index: z.number().int().nonnegative().optional(),
});
export type GeminiCandidate = z.infer<typeof geminiCandidateSchema>;

/** One answer, or one chunk of a streamed answer: the same shape. */
export const geminiGenerateContentResponseSchema = z.looseObject({
  candidates: z.array(geminiCandidateSchema).optional(),
  promptFeedback: z.looseObject({ blockReason: z.string().optional() }).optional(),
  usageMetadata: geminiUsageMetadataSchema.optional(),
  modelVersion: z.string().optional(),
  responseId: z.string().optional(),
});
export type GeminiGenerateContentResponse = z.infer<typeof geminiGenerateContentResponseSchema>;

export const geminiBatchEmbedContentsResponseSchema = z.looseObject({
  embeddings: z.array(z.looseObject({ values: z.array(z.number()) })),
});
export type GeminiBatchEmbedContentsResponse = z.infer<typeof geminiBatchEmbedContentsResponseSchema>;

/** google.rpc.Status as the REST API renders it. */
export const geminiErrorBodySchema = z.looseObject({
  error: z.looseObject({
    code: z.number().int().optional(),
    message: z.string().optional(),
    status: z.string().optional(),
    details: z.array(z.looseObject({ '@type': z.string().optional() })).optional(),
  }),
});
export type GeminiErrorBody = z.infer<typeof geminiErrorBodySchema>;
