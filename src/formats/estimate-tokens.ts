import { setImmediate as nextTurn } from 'node:timers/promises';
import { embeddingsInput } from './input-counters.ts';
import { isRecord, type Json } from './json.ts';
import type { Operation } from './operation.ts';
import { OPERATION_SPECS } from './operation-spec.ts';
import {
  ByteBoundCounter,
  CharCountCounter,
  type JsonText,
  SLICE_CHARS,
  TextCollector,
  type TextCounter,
  TokenCounter,
} from './token-counter.ts';

/**
 * Pre-call token estimates, for the context-window check and for reserving TPM before the
 * upstream answers (DESIGN.md section 4): each operation's counting function
 * (formats/operation-spec.ts, input-counters.ts) run with the counter the request's size calls
 * for. The settle stage corrects every reservation from the upstream's reported usage.
 */

function countInput(counter: TextCounter, operation: Operation, body: Json): number {
  return OPERATION_SPECS[operation].countInput(counter, body);
}

/**
 * Above this many characters of text (UTF-16 code units, about 1 MiB of ASCII) a request's tokens
 * are estimated from its character count alone, DEFAULT_TOKENS_PER_CHAR per character, without
 * the tokenizer: it is not even loaded. Below it, the tokenizer counts the first 64 Ki characters
 * exactly and extrapolates the rest (token-counter.ts). The settle stage corrects either from the
 * upstream's usage; the upstream judges the context window of a large input it underestimated.
 */
export const LARGE_INPUT_CHARS = 1_048_576;

/**
 * Estimated input tokens of a request in the operation's wire format. Image and audio
 * operations count only their text prompt (their cost is per image or per minute). Counted at
 * once: a caller on the request path uses `estimateInputTokensPaced`.
 */
export function estimateInputTokens(operation: Operation, body: unknown): number {
  const input = collectInput(operation, body);
  return typeof input === 'number' ? input : input.fixed + countAtOnce(input.texts);
}

/**
 * The same estimate as `estimateInputTokens`, but when more than one slice of text is to be
 * counted exactly, the slices are counted between turns of the event loop (a promise of the
 * count): the exact count of 64 Ki characters holds the main thread for tens of milliseconds, every
 * other call waiting (docs/decisions/hot-path.md, Tokenizer bounds). A small input is counted at
 * once and its count returned as it is, so the common call awaits nothing.
 */
export function estimateInputTokensPaced(operation: Operation, body: unknown): number | Promise<number> {
  const input = collectInput(operation, body);
  if (typeof input === 'number') return input;
  if (input.chars <= SLICE_CHARS) return input.fixed + countAtOnce(input.texts);
  return countPaced(input.texts).then((tokens) => input.fixed + tokens);
}

/** A request's texts to count, after its fixed allowances (message overheads, images). */
interface CollectedInput {
  fixed: number;
  texts: readonly (string | JsonText)[];
  chars: number;
}

/**
 * One walk of the request: its texts to count, or the estimate itself when nothing is to be
 * counted (not a JSON object, or a large input, estimated from its characters).
 */
function collectInput(operation: Operation, body: unknown): CollectedInput | number {
  if (!isRecord(body)) return 0;
  const collected = new TextCollector();
  const fixed = countInput(collected, operation, body);
  if (collected.chars > LARGE_INPUT_CHARS) return fixed + collected.cheapTokens;
  return { fixed, texts: collected.texts, chars: collected.chars };
}

function countAtOnce(texts: readonly (string | JsonText)[]): number {
  const counter = new TokenCounter();
  let tokens = 0;
  for (const text of texts) tokens += counter.count(String(text));
  return tokens;
}

/** `TokenCounter.count` over the texts, cut at the same places, with a turn of the event loop between slices. */
async function countPaced(texts: readonly (string | JsonText)[]): Promise<number> {
  const counter = new TokenCounter();
  let tokens = 0;
  let sinceTurn = 0;
  for (const item of texts) {
    const text = String(item);
    const exactLength = counter.exactLengthOf(text);
    for (let start = 0; start < exactLength; start += SLICE_CHARS) {
      const end = Math.min(start + SLICE_CHARS, exactLength);
      if (sinceTurn + end - start > SLICE_CHARS) {
        await nextTurn();
        sinceTurn = 0;
      }
      tokens += counter.countSlice(text, start, end);
      sinceTurn += end - start;
    }
    tokens += counter.extrapolate(text.length - exactLength);
  }
  return tokens;
}

/**
 * The estimate of each input of an embeddings batch, with one counter for the whole batch: the
 * tokenizer's exact budget and the large-input threshold are the request's, not each input's.
 */
export function estimateEachEmbeddingInput(inputs: readonly unknown[]): number[] {
  const byChars = new CharCountCounter();
  const cheap = inputs.map((input) => embeddingsInput(byChars, [input]));
  if (byChars.chars > LARGE_INPUT_CHARS) return cheap;
  const exact = new TokenCounter();
  return inputs.map((input) => embeddingsInput(exact, [input]));
}

/**
 * A bound no estimate exceeds, counted in UTF-8 bytes without the tokenizer: when it fits a
 * context window, so does the input, and the exact count can be skipped.
 */
export function inputTokensUpperBound(operation: Operation, body: unknown): number {
  return isRecord(body) ? countInput(new ByteBoundCounter(), operation, body) : 0;
}

/**
 * The output tokens a request asks for at most (`max_completion_tokens` or `max_tokens` in
 * Chat Completions, `max_tokens` in Messages, `max_output_tokens` in Responses), or null when it
 * sets none or the operation has none.
 */
export function requestedOutputTokens(operation: Operation, body: unknown): number | null {
  return isRecord(body) ? OPERATION_SPECS[operation].requestedOutputTokens(body) : null;
}

/**
 * Tokens of generated text (what a stream delivered, when its upstream reported no usage), with
 * the same counter as the input estimates: exact up to its character budget, extrapolated beyond.
 */
export function countOutputTokens(text: string): number {
  return new TokenCounter({ rememberCounts: false }).count(text);
}
