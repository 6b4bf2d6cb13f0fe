import { anthropicMessages, chatCompletion, embeddingsInput, responses, text } from './input-counters.ts';
import type { Json } from './json.ts';
import type { Operation } from './operation.ts';
import { chatPrompt, embeddingsPrompt, messagesPrompt, promptField, responsesPrompt } from './prompt-text.ts';
import type { TextCounter } from './token-counter.ts';

/**
 * Every fact that varies by operation, in one place: the layers above ask the spec rather than
 * switch on an operation's name. Adding an operation is one entry in OPERATION_SPECS, which the
 * compiler holds complete (`satisfies Record<Operation, OperationSpec>`). Client wire formats
 * (formats/<name>/index.ts) say the rest of what a format's body and answer hold.
 */
export interface OperationSpec {
  /** `gen_ai.operation.name` (OpenTelemetry GenAI semantic conventions' well-known values). */
  readonly genAiName: 'chat' | 'embeddings' | 'generate_content';
  /** Clients may send multipart/form-data (OpenAI API reference: image edits, variations, transcriptions). */
  readonly multipart: boolean;
  /**
   * Answers with generated text, so a call reserves output tokens and may stream; the others
   * (embeddings, images, audio) reserve none.
   */
  readonly textOutput: boolean;
  /**
   * Answers are kept by the response cache: text in, JSON out. Images and audio are not (an image
   * answer's URLs expire, and a multipart upload cannot be hashed without reading it first).
   */
  readonly cacheable: boolean;
  /**
   * The field holding the input checked against the context window, reported as `param`; null
   * where the catalog's context window is not about the prompt (images, audio).
   */
  readonly contextParam: string | null;
  /** Tokens of the request's input, counted with `counter` (input-counters.ts). */
  countInput(counter: TextCounter, body: Json): number;
  /** The output bound the request sets (`max_tokens` and its kin), or null. */
  requestedOutputTokens(body: Json): number | null;
  /**
   * What the records keep of the prompt (prompt-text.ts), before truncation: at least its first
   * `limit` characters (all of it when shorter), never needlessly more.
   */
  promptText(body: Json, limit: number): string | null;
}

function tokenLimit(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

const noOutputBound = (): null => null;
const promptTokens = (counter: TextCounter, body: Json): number => text(counter, body.prompt);

/** An image or audio operation: its text prompt is its only countable input (its cost is per image or minute). */
const mediaSpec = (multipart: boolean): OperationSpec => ({
  genAiName: 'generate_content',
  multipart,
  textOutput: false,
  cacheable: false,
  contextParam: null,
  countInput: promptTokens,
  requestedOutputTokens: noOutputBound,
  promptText: promptField,
});

export const OPERATION_SPECS = Object.freeze({
  'chat.completions': {
    genAiName: 'chat',
    multipart: false,
    textOutput: true,
    cacheable: true,
    contextParam: 'messages',
    countInput: chatCompletion,
    requestedOutputTokens: (body) => tokenLimit(body.max_completion_tokens) ?? tokenLimit(body.max_tokens),
    promptText: chatPrompt,
  },
  messages: {
    genAiName: 'chat',
    multipart: false,
    textOutput: true,
    cacheable: true,
    contextParam: 'messages',
    countInput: anthropicMessages,
    requestedOutputTokens: (body) => tokenLimit(body.max_tokens),
    promptText: messagesPrompt,
  },
  responses: {
    genAiName: 'chat',
    multipart: false,
    textOutput: true,
    cacheable: true,
    contextParam: 'input',
    countInput: responses,
    requestedOutputTokens: (body) => tokenLimit(body.max_output_tokens),
    promptText: responsesPrompt,
  },
  embeddings: {
    genAiName: 'embeddings',
    multipart: false,
    textOutput: false,
    cacheable: true,
    contextParam: 'input',
    countInput: (counter, body) => embeddingsInput(counter, body.input),
    requestedOutputTokens: noOutputBound,
    promptText: embeddingsPrompt,
  },
  'images.generations': mediaSpec(false),
  'images.edits': mediaSpec(true),
  'images.variations': mediaSpec(true),
  'audio.transcriptions': mediaSpec(true),
} satisfies Record<Operation, OperationSpec>);
