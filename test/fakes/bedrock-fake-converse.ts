/**
 * The parts of Converse the Bedrock fake models beyond echoing: the request checks Bedrock makes
 * (a conversation with toolUse / toolResult blocks needs a `toolConfig`), prompt caching (what
 * precedes the last `cachePoint` is written on first sight and read afterwards, counted in words),
 * extended thinking (Claude's `thinking` in `additionalModelRequestFields` adds a reasoning block),
 * and stop sequences (stopAt).
 */
import { countWords } from './fake-server.ts';

type Block = Record<string, unknown>;

export interface ConverseBody {
  messages?: Array<{ role: string; content: Block[] }>;
  system?: Block[];
  toolConfig?: {
    tools?: Array<{ toolSpec?: { name: string }; cachePoint?: unknown }>;
    toolChoice?: { any?: unknown; tool?: { name: string } };
  };
  additionalModelRequestFields?: { thinking?: { type?: string }; tool_choice?: { type?: string } };
  inferenceConfig?: { stopSequences?: string[] };
  additionalModelResponseFieldPaths?: unknown;
}

/** Converse's ValidationException for tool blocks without a toolConfig, or null. */
export function converseValidationError(body: ConverseBody): string | null {
  const toolBlocks = (body.messages ?? []).some((message) =>
    message.content.some((block) => 'toolUse' in block || 'toolResult' in block),
  );
  if (toolBlocks && !body.toolConfig) {
    return 'The toolConfig field must be defined when using toolUse and toolResult content blocks.';
  }
  const paths = body.additionalModelResponseFieldPaths;
  if (paths !== undefined && !(Array.isArray(paths) && paths.every((path) => /^\/./.test(String(path))))) {
    return 'additionalModelResponseFieldPaths must be a list of JSON Pointers';
  }
  return null;
}

export interface ConverseStop {
  sequence: string;
  /** The model's own answer fields the request asked for (`additionalModelResponseFields`). */
  fields?: Record<string, unknown>;
}

/**
 * The text cut before the first of the request's stop sequences it contains, as Converse cuts it,
 * and the stop; Claude's answer names the sequence in its own `stop_sequence` field, which comes
 * back when the request asks for `/stop_sequence` (other models' answers lack it: ignored).
 */
export function stopAt(
  body: ConverseBody,
  text: string,
  modelId: string,
): { text: string; stop: ConverseStop | null } {
  for (const sequence of body.inferenceConfig?.stopSequences ?? []) {
    const at = text.indexOf(sequence);
    if (at === -1) continue;
    const paths = body.additionalModelResponseFieldPaths as string[] | undefined;
    const named = /anthropic\.claude-/.test(modelId) && paths?.includes('/stop_sequence');
    return {
      text: text.slice(0, at),
      stop: { sequence, ...(named ? { fields: { stop_sequence: sequence } } : {}) },
    };
  }
  return { text, stop: null };
}

/** Words are counted in text blocks only (tool specs and results count for nothing). */
const textOf = (block: Block): string => (typeof block.text === 'string' ? block.text : '');

/** The prompt as the model reads it (tools, system, messages), with cache points as markers. */
function promptBlocks(body: ConverseBody): Block[] {
  const tools = (body.toolConfig?.tools ?? []).map((tool) =>
    tool.cachePoint ? { cachePoint: tool.cachePoint } : { toolSpec: tool.toolSpec },
  );
  return [...tools, ...(body.system ?? []), ...(body.messages ?? []).flatMap((message) => message.content)];
}

export interface CacheUsage {
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
  /** Prompt words not counted as cache reads or writes. */
  uncached: number;
}

export class FakePromptCache {
  readonly #written = new Set<string>();

  usage(body: ConverseBody): CacheUsage {
    const blocks = promptBlocks(body);
    const total = countWords(blocks.map(textOf).join(' '));
    const last = blocks.findLastIndex((block) => 'cachePoint' in block);
    if (last === -1) return { uncached: total };
    const prefix = blocks.slice(0, last).map(textOf).join(' ');
    const tokens = countWords(prefix);
    if (this.#written.has(prefix))
      return { cacheReadInputTokens: tokens, cacheWriteInputTokens: 0, uncached: total - tokens };
    this.#written.add(prefix);
    return { cacheReadInputTokens: 0, cacheWriteInputTokens: tokens, uncached: total - tokens };
  }
}

/** The reasoning Claude writes when thinking is enabled, or null. */
export function fakeReasoning(body: ConverseBody, lastText: string): string | null {
  return body.additionalModelRequestFields?.thinking?.type === 'enabled'
    ? `Thinking about: ${lastText}`
    : null;
}
