import type { ModelCapabilities } from './catalog-entry.ts';

/**
 * One model family of the overlay. `prefix` is matched against the normalised model name
 * (see normalize-model-name.ts); the longest matching prefix wins, so order does not matter.
 * `contextWindow` is used only when genai-prices has none for the model; `maxOutputTokens`
 * is given only where the provider documents one fixed value for the whole family.
 */
export interface OverlayRule {
  readonly prefix: string;
  readonly capabilities: Readonly<ModelCapabilities>;
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
}

const NONE = { tools: false, vision: false, reasoning: false, structuredOutputs: false };
const TOOLS_ONLY = { tools: true, vision: false, reasoning: false, structuredOutputs: false };
const REASONING_ONLY = { tools: false, vision: false, reasoning: true, structuredOutputs: false };
const MULTIMODAL = { tools: true, vision: true, reasoning: false, structuredOutputs: true };
const MULTIMODAL_REASONING = { tools: true, vision: true, reasoning: true, structuredOutputs: true };
const TEXT_REASONING = { tools: true, vision: false, reasoning: true, structuredOutputs: true };
// Claude before structured outputs (JSON outputs, `output_config.format`; strict tools).
const CLAUDE = { tools: true, vision: true, reasoning: false, structuredOutputs: false };
const CLAUDE_THINKING = { tools: true, vision: true, reasoning: true, structuredOutputs: false };
// Anthropic, "Structured outputs": generally available on the Claude API and Bedrock for Opus 4.6,
// Sonnet 4.6, Sonnet 4.5, Opus 4.5 and Haiku 4.5; Opus 4.1 had them in the public beta.
const CLAUDE_STRUCTURED = { tools: true, vision: true, reasoning: true, structuredOutputs: true };
// Open-weight families behind OpenAI-compatible servers (vLLM, Ollama, Groq, Together...):
// tool calling is common to current releases; vision and reasoning only for the named variants;
// structured outputs are a server feature (constrained decoding) that those servers offer for
// any model, so the model is not what limits them.
const OPEN_WEIGHTS = { tools: true, vision: false, reasoning: false, structuredOutputs: true };
const OPEN_WEIGHTS_VISION = { tools: true, vision: true, reasoning: false, structuredOutputs: true };
const OPEN_WEIGHTS_REASONING = { tools: true, vision: false, reasoning: true, structuredOutputs: true };

const RULES = [
  // OpenAI: https://platform.openai.com/docs/models
  { prefix: 'gpt-5', capabilities: MULTIMODAL_REASONING, contextWindow: 400_000, maxOutputTokens: 128_000 },
  { prefix: 'gpt-5-chat', capabilities: MULTIMODAL, contextWindow: 128_000, maxOutputTokens: 16_384 },
  { prefix: 'gpt-4.1', capabilities: MULTIMODAL, contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  { prefix: 'gpt-4o', capabilities: MULTIMODAL, contextWindow: 128_000, maxOutputTokens: 16_384 },
  { prefix: 'gpt-4o-transcribe', capabilities: NONE },
  { prefix: 'gpt-4o-mini-transcribe', capabilities: NONE },
  { prefix: 'gpt-4o-mini-tts', capabilities: NONE },
  {
    prefix: 'gpt-4-turbo',
    capabilities: { ...MULTIMODAL, structuredOutputs: false },
    contextWindow: 128_000,
  },
  // No context window: the family spans 8k, 32k and 128k variants.
  { prefix: 'gpt-4', capabilities: TOOLS_ONLY },
  { prefix: 'gpt-3.5-turbo', capabilities: TOOLS_ONLY, contextWindow: 16_385, maxOutputTokens: 4_096 },
  { prefix: 'o1', capabilities: MULTIMODAL_REASONING, contextWindow: 200_000, maxOutputTokens: 100_000 },
  { prefix: 'o1-mini', capabilities: REASONING_ONLY, contextWindow: 128_000, maxOutputTokens: 65_536 },
  { prefix: 'o1-preview', capabilities: REASONING_ONLY, contextWindow: 128_000, maxOutputTokens: 32_768 },
  { prefix: 'o3', capabilities: MULTIMODAL_REASONING, contextWindow: 200_000, maxOutputTokens: 100_000 },
  { prefix: 'o3-mini', capabilities: TEXT_REASONING, contextWindow: 200_000, maxOutputTokens: 100_000 },
  { prefix: 'o4', capabilities: MULTIMODAL_REASONING, contextWindow: 200_000, maxOutputTokens: 100_000 },
  { prefix: 'gpt-oss', capabilities: OPEN_WEIGHTS_REASONING, contextWindow: 131_072 },
  { prefix: 'text-embedding-', capabilities: NONE },
  { prefix: 'dall-e-', capabilities: NONE },
  { prefix: 'gpt-image-', capabilities: NONE },
  { prefix: 'whisper-', capabilities: NONE },
  { prefix: 'tts-', capabilities: NONE },

  // Anthropic: https://docs.anthropic.com/en/docs/about-claude/models/overview
  // Any later Claude is assumed to think and to take structured outputs like the 4.5 families.
  { prefix: 'claude-', capabilities: CLAUDE_STRUCTURED, contextWindow: 200_000 },
  { prefix: 'claude-opus-4', capabilities: CLAUDE_THINKING, contextWindow: 200_000, maxOutputTokens: 32_000 },
  {
    prefix: 'claude-opus-4-1',
    capabilities: CLAUDE_STRUCTURED,
    contextWindow: 200_000,
    maxOutputTokens: 32_000,
  },
  {
    prefix: 'claude-opus-4-5',
    capabilities: CLAUDE_STRUCTURED,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
  },
  {
    prefix: 'claude-opus-4-6',
    capabilities: CLAUDE_STRUCTURED,
    contextWindow: 200_000,
    maxOutputTokens: 128_000,
  },
  {
    prefix: 'claude-sonnet-4',
    capabilities: CLAUDE_THINKING,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
  },
  {
    prefix: 'claude-sonnet-4-5',
    capabilities: CLAUDE_STRUCTURED,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
  },
  {
    prefix: 'claude-sonnet-4-6',
    capabilities: CLAUDE_STRUCTURED,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
  },
  {
    prefix: 'claude-haiku-4-5',
    capabilities: CLAUDE_STRUCTURED,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
  },
  { prefix: 'claude-2', capabilities: NONE, contextWindow: 100_000 },
  { prefix: 'claude-instant', capabilities: NONE, contextWindow: 100_000 },
  { prefix: 'claude-3', capabilities: CLAUDE, contextWindow: 200_000, maxOutputTokens: 4_096 },
  { prefix: 'claude-3-5', capabilities: CLAUDE, contextWindow: 200_000, maxOutputTokens: 8_192 },
  // 64k output; 128k only with a beta header the client must send.
  { prefix: 'claude-3-7', capabilities: CLAUDE_THINKING, contextWindow: 200_000, maxOutputTokens: 64_000 },

  // Google: https://ai.google.dev/gemini-api/docs/models
  { prefix: 'gemini-1.0', capabilities: TOOLS_ONLY, contextWindow: 32_760 },
  { prefix: 'gemini-pro', capabilities: TOOLS_ONLY, contextWindow: 32_760 },
  { prefix: 'gemini-1.5', capabilities: MULTIMODAL, contextWindow: 1_048_576, maxOutputTokens: 8_192 },
  { prefix: 'gemini-2.', capabilities: MULTIMODAL, contextWindow: 1_048_576 },
  {
    prefix: 'gemini-2.5',
    capabilities: MULTIMODAL_REASONING,
    contextWindow: 1_048_576,
    maxOutputTokens: 65_536,
  },
  { prefix: 'gemini-3', capabilities: MULTIMODAL_REASONING },
  { prefix: 'gemini-embedding', capabilities: NONE },
  { prefix: 'imagen-', capabilities: NONE },

  // Amazon Nova on Bedrock (`amazon.nova-pro-v1:0` once normalised): https://docs.aws.amazon.com/nova/
  // The first generation does not reason (no reasoning control in Converse); Micro reads text only.
  { prefix: 'nova-', capabilities: MULTIMODAL },
  { prefix: 'nova-micro', capabilities: { ...MULTIMODAL, vision: false } },
  { prefix: 'nova-2', capabilities: MULTIMODAL_REASONING },

  // Meta Llama (also Bedrock's `meta.llama3-...` once normalised).
  { prefix: 'llama', capabilities: OPEN_WEIGHTS },
  { prefix: 'llama-3.2-11b-vision', capabilities: OPEN_WEIGHTS_VISION },
  { prefix: 'llama-3.2-90b-vision', capabilities: OPEN_WEIGHTS_VISION },
  { prefix: 'llama3.2-vision', capabilities: OPEN_WEIGHTS_VISION },
  { prefix: 'llama3-2-11b', capabilities: OPEN_WEIGHTS_VISION },
  { prefix: 'llama3-2-90b', capabilities: OPEN_WEIGHTS_VISION },
  { prefix: 'llama-4', capabilities: OPEN_WEIGHTS_VISION },
  { prefix: 'llama4', capabilities: OPEN_WEIGHTS_VISION },

  // Mistral: https://docs.mistral.ai/getting-started/models/
  { prefix: 'mistral', capabilities: OPEN_WEIGHTS },
  { prefix: 'mixtral', capabilities: OPEN_WEIGHTS },
  { prefix: 'ministral', capabilities: OPEN_WEIGHTS },
  { prefix: 'codestral', capabilities: OPEN_WEIGHTS },
  { prefix: 'open-mistral', capabilities: OPEN_WEIGHTS },
  { prefix: 'open-mixtral', capabilities: OPEN_WEIGHTS },
  { prefix: 'pixtral', capabilities: OPEN_WEIGHTS_VISION },
  { prefix: 'magistral', capabilities: OPEN_WEIGHTS_REASONING },
  { prefix: 'mistral-embed', capabilities: NONE },

  // Qwen and DeepSeek.
  { prefix: 'qwen', capabilities: OPEN_WEIGHTS },
  { prefix: 'qwen-vl', capabilities: OPEN_WEIGHTS_VISION },
  { prefix: 'qwen2-vl', capabilities: OPEN_WEIGHTS_VISION },
  { prefix: 'qwen2.5-vl', capabilities: OPEN_WEIGHTS_VISION },
  { prefix: 'qwen3', capabilities: OPEN_WEIGHTS_REASONING },
  { prefix: 'qwen3-vl', capabilities: { ...OPEN_WEIGHTS_REASONING, vision: true } },
  { prefix: 'qwq', capabilities: OPEN_WEIGHTS_REASONING },
  { prefix: 'deepseek', capabilities: OPEN_WEIGHTS },
  { prefix: 'deepseek-reasoner', capabilities: OPEN_WEIGHTS_REASONING },
  { prefix: 'deepseek-r1', capabilities: OPEN_WEIGHTS_REASONING },

  // Embedding models commonly served by OpenAI-compatible servers.
  { prefix: 'nomic-embed', capabilities: NONE },
  { prefix: 'mxbai-embed', capabilities: NONE },
  { prefix: 'bge-', capabilities: NONE },
  { prefix: 'all-minilm', capabilities: NONE },
] satisfies readonly OverlayRule[];

/**
 * The project's capability overlay (DESIGN.md section 1, model catalog): genai-prices gives
 * prices and context windows but not capabilities, so they come from here. Sorted longest prefix
 * first, so the first match is the most specific; frozen, so no caller can change shared data.
 */
export const CAPABILITY_OVERLAY: readonly OverlayRule[] = Object.freeze(
  [...RULES]
    .sort((a, b) => b.prefix.length - a.prefix.length)
    .map((rule) => Object.freeze({ ...rule, capabilities: Object.freeze({ ...rule.capabilities }) })),
);
