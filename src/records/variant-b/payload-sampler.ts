import type { CallSummary } from '../call-summary.ts';
import { cleanText, truncate } from '../prompt.ts';
import type { CapturedResponse } from '../response-capture.ts';

/**
 * Bounds of the forensic payload samples (SPEC.md, Request log records: "Bounded forensic samples
 * are stored separately, encrypted, and expire").
 */
export interface PayloadSampleSettings {
  fraction: number;
  maxPerSecond: number;
  maxBytes: number;
}

export const PAYLOAD_SAMPLE_DEFAULTS: Readonly<PayloadSampleSettings> = Object.freeze({
  /** Share of successful calls sampled. Failures are always sampled (within the rate bound). */
  fraction: 0.01,
  /** Samples per second per process at most (a token bucket of this size, refilled each second). */
  maxPerSecond: 10,
  /** Plaintext bytes per sample at most (UTF-8), before encryption. */
  maxBytes: 8 * 1024,
});

export type SampleReason = 'sampled' | 'failure';

/** What is sealed into `payload_samples.envelope` (JSON, at most maxBytes). */
export interface SamplePlaintext {
  requestId: string;
  operation: string;
  publicModel: string;
  /** The client's body, the answer and the error detail, as JSON; absent parts are null. */
  request: unknown;
  response: CapturedResponse | null;
  error: unknown;
}

/** Decides which calls leave a sample: a fraction of successes, every failure, within a rate. */
export class PayloadSampler {
  readonly #settings: PayloadSampleSettings;
  readonly #random: () => number;
  readonly #now: () => number;
  #tokens: number;
  #refilledAtMs: number;

  constructor(
    settings: PayloadSampleSettings,
    random: () => number = Math.random,
    now: () => number = Date.now,
  ) {
    this.#settings = settings;
    this.#random = random;
    this.#now = now;
    this.#tokens = settings.maxPerSecond;
    this.#refilledAtMs = now();
  }

  /** At call start: whether a success of this call would be sampled (so its answer is captured). */
  wantsSuccess(): boolean {
    return this.#settings.fraction > 0 && this.#random() < this.#settings.fraction;
  }

  /** At call end: the reason to keep a sample, or null (not chosen, or over the rate). */
  reasonFor(call: CallSummary, chosenAtStart: boolean): SampleReason | null {
    const reason: SampleReason | null =
      call.status === 'failure' ? 'failure' : chosenAtStart && call.status === 'success' ? 'sampled' : null;
    if (reason === null || !this.#take()) return null;
    return reason;
  }

  #take(): boolean {
    const now = this.#now();
    const elapsedMs = now - this.#refilledAtMs;
    if (elapsedMs > 0) {
      const max = this.#settings.maxPerSecond;
      this.#tokens = Math.min(max, this.#tokens + (elapsedMs * max) / 1000);
      this.#refilledAtMs = now;
    }
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** The plaintext, cut to maxBytes: over the bound it becomes `{ truncated: true, text }`. */
  plaintextOf(sample: SamplePlaintext): string {
    const max = this.#settings.maxBytes;
    const text = cleanText(JSON.stringify(sample, replacerCutAt(max)));
    if (Buffer.byteLength(text) <= max) return text;
    // Multi-byte characters and JSON escaping make bytes exceed characters: shrink until it fits.
    let budget = Math.max(0, max - 64);
    for (;;) {
      const cut = JSON.stringify({ truncated: true, text: truncate(text, budget) });
      if (Buffer.byteLength(cut) <= max || budget === 0) return cut;
      budget = Math.floor(budget * 0.8);
    }
  }
}

/**
 * Strings cut to `maxChars` UTF-16 units before they are serialised: a sample keeps at most that
 * many bytes, so the text up to the cut is all it can hold, and a megabyte prompt is not copied
 * whole into the JSON, then scanned and cut (one sampled call held the main thread for 10 ms:
 * docs/performance.md, Stop 42: prompts). The sample is the same: a text over the bound is over it
 * still, and the truncated text ends before the first cut.
 */
function replacerCutAt(maxChars: number) {
  return function sampleReplacer(this: unknown, key: string, value: unknown): unknown {
    if (typeof value === 'string' && value.length > maxChars) return value.slice(0, maxChars);
    return keptPart.call(this, key, value);
  };
}

/** Keeps binary parts (multipart uploads) out of a sample: their size is enough to explain a failure. */
function keptPart(this: unknown, key: string, value: unknown): unknown {
  const original = (this as Record<string, unknown>)[key];
  if (original instanceof Uint8Array) return `[binary: ${original.byteLength} bytes]`;
  if (typeof value === 'bigint') return String(value);
  if (
    typeof original === 'object' &&
    original !== null &&
    typeof (original as { pipe?: unknown }).pipe === 'function'
  ) {
    return '[stream]';
  }
  return value;
}
