import type { Operation } from '../formats/operation.ts';

/**
 * The input side of a call's worst case (DESIGN.md section 5, Budget admission): what the
 * provider may bill for the input, not the gateway's own count. The gateway counts text with
 * o200k_base (estimate-tokens.ts); each provider bills with its own tokenizer and adds its own
 * framing, so the bound scales the estimate by a margin per provider family and adds the
 * family's framing, each written down with its source in docs/configuration.md (Budgets). Parts
 * with a size the text count cannot see get a bound of their own: each image the largest any
 * family bills for one image; a file, PDF, audio or video part the whole context window, since a
 * provider bills at most the window for an input it accepts.
 */

export type ProviderFamily = 'openai' | 'anthropic' | 'gemini' | 'open-weights';

interface FamilyBound {
  /** The provider's count of a text over the gateway's o200k_base count, at most. */
  textMargin: number;
  /** Tokens the provider adds to a call that defines tools (a tool-use system prompt). */
  toolsFraming: number;
  /** Tokens the provider adds per tool definition beyond its JSON. */
  perToolFraming: number;
}

/** Sources in docs/configuration.md, Budgets ("The input bound, per provider family"). */
const FAMILY_BOUNDS: Readonly<Record<ProviderFamily, FamilyBound>> = {
  // o200k_base is the tokenizer of GPT-4o and later; cl100k_base models count within 10% of it.
  // OpenAI's cookbook counts 7 tokens to open and 12 to close each function definition.
  openai: { textMargin: 1.1, toolsFraming: 0, perToolFraming: 20 },
  // Claude Opus 4.7's tokenizer: 1.0-1.35x its predecessor (Anthropic's migration guide), up to
  // 1.47x measured with count_tokens; the tool-use system prompt is 346 tokens on Claude 4 models
  // and at most 530 in Anthropic's table (Claude 3 Opus, tool_choice auto).
  anthropic: { textMargin: 1.6, toolsFraming: 600, perToolFraming: 0 },
  // Gemini's SentencePiece vocabulary counts about 4 characters a token (Google's token guide),
  // close to o200k_base on English and above it on some scripts.
  gemini: { textMargin: 1.3, toolsFraming: 100, perToolFraming: 0 },
  // Llama, Mistral, Qwen and the like: smaller vocabularies than o200k_base outside English,
  // chat templates of a few tokens per message.
  'open-weights': { textMargin: 1.5, toolsFraming: 100, perToolFraming: 10 },
};

/**
 * Tokens one image may be billed at most, on any family: OpenAI's patch-based models up to 1,536
 * patches times a 2.46 multiplier (3,779), Anthropic about width x height / 750 at the largest
 * size it takes unresized (Claude Opus 4.7: 2,576 px, about 4,784), Gemini 258 per 768 px tile.
 */
export const IMAGE_TOKEN_BOUND = 4_800;

/** Without a known context window, the bound of a part the gateway cannot size. */
export const UNKNOWN_WINDOW_INPUT_BOUND = 1_000_000;

const IMAGE_PARTS = new Set(['image_url', 'input_image', 'image']);
/** Parts whose tokens depend on content the gateway does not decode (pages, duration, frames). */
const UNSIZED_PARTS = new Set(['file', 'input_file', 'input_audio', 'audio', 'video_url', 'input_video']);
/** Only these carry parts; tool definitions and settings are counted as text. */
const CONTENT_FIELDS = ['messages', 'input', 'system', 'instructions'] as const;

/** The family whose tokenizer and framing bill a deployment's calls. */
export function providerFamily(provider: string, upstreamModel: string): ProviderFamily {
  const model = upstreamModel.toLowerCase();
  if (provider === 'anthropic' || model.includes('claude')) return 'anthropic';
  if (provider === 'gemini' || provider === 'vertex' || model.includes('gemini')) return 'gemini';
  if (provider === 'openai' || provider === 'azure') return 'openai';
  if (/(^|\/)(gpt-|o\d)/.test(model)) return 'openai';
  return 'open-weights';
}

export interface InputParts {
  images: number;
  /** File, PDF, audio and video parts. */
  unsized: number;
  tools: number;
}

/** Counts the parts of a body's conversation (nested tool results included), without recursion. */
export function inputParts(body: Readonly<Record<string, unknown>>): InputParts {
  const parts: InputParts = {
    images: 0,
    unsized: 0,
    tools: Array.isArray(body.tools) ? body.tools.length : 0,
  };
  const pending: unknown[] = CONTENT_FIELDS.map((field) => body[field]);
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
      continue;
    }
    const node = value as Record<string, unknown>;
    if (typeof node.type === 'string') countPart(node, parts);
    for (const key in node) pending.push(node[key]);
  }
  return parts;
}

function countPart(node: Readonly<Record<string, unknown>>, parts: InputParts): void {
  if (IMAGE_PARTS.has(node.type as string)) parts.images += 1;
  else if (UNSIZED_PARTS.has(node.type as string)) parts.unsized += 1;
  else if (node.type === 'document') {
    // A text document is counted as text by the estimate; a PDF or a file is not.
    const source = node.source as { type?: unknown } | undefined;
    if (source?.type !== 'text' && source?.type !== 'content') parts.unsized += 1;
  }
}

export interface InputBoundQuery {
  operation: Operation;
  body: Readonly<Record<string, unknown>>;
  /** The gateway's own estimate of the input (estimate-tokens.ts). */
  estimate: number;
  provider: string;
  upstreamModel: string;
  contextWindow: number | null;
}

/** The most input tokens the deployment's provider may bill for the call. */
export function inputTokenBound(query: InputBoundQuery): number {
  const window = query.contextWindow;
  const conversational =
    query.operation === 'chat.completions' ||
    query.operation === 'messages' ||
    query.operation === 'responses';
  const parts = conversational ? inputParts(query.body) : { images: 0, unsized: 0, tools: 0 };
  if (parts.unsized > 0) return window ?? UNKNOWN_WINDOW_INPUT_BOUND;
  const family = FAMILY_BOUNDS[providerFamily(query.provider, query.upstreamModel)];
  const framing = parts.tools > 0 ? family.toolsFraming + parts.tools * family.perToolFraming : 0;
  const bound = Math.ceil(query.estimate * family.textMargin) + framing + parts.images * IMAGE_TOKEN_BOUND;
  // A provider refuses, and does not bill, an input larger than its window.
  return window === null ? bound : Math.min(bound, window);
}
