/**
 * Token usage, normalised across formats and providers (for TPM reconciliation and cost): what
 * each format's usage mapping (formats/<name>/usage.ts) and each adapter turn their own counts into.
 */
export interface Usage {
  /** All input tokens, cached ones included (OpenAI's `prompt_tokens`; Anthropic's three input counts summed). */
  inputTokens: number;
  outputTokens: number;
  /** The part of inputTokens read from the provider's prompt cache. */
  cachedInputTokens?: number;
  /** For image operations: images produced. */
  images?: number;
  /** For audio operations: seconds of audio. */
  audioSeconds?: number;
}
