/**
 * Bedrock model ids carry an optional cross-region inference prefix and a vendor prefix
 * (`us.anthropic.claude-3-5-sonnet-20240620-v1:0`, `meta.llama3-1-70b-instruct-v1:0`):
 * https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html
 */
const BEDROCK_PREFIX =
  /^(?:(?:us|eu|apac|au|ca|jp|us-gov|global)\.)?(?:anthropic|meta|mistral|amazon|cohere|ai21|deepseek|qwen|openai|writer)\./;

/** Vertex AI's Claude ids end in `@<version>` (`claude-sonnet-4-5@20250929`). */
const VERTEX_VERSION_SUFFIX = /@[a-z0-9-]+$/;

/** OpenAI fine-tuned model ids: https://platform.openai.com/docs/guides/fine-tuning */
const FINE_TUNE_PREFIX = /^ft:/;

/**
 * The family name of a model id, for matching the capability overlay: lower case, without a
 * path (`openai/gpt-4o`, `models/gemini-1.5-pro`, `meta-llama/Llama-3.1-8B-Instruct`) and
 * without Bedrock's region and vendor prefixes or Vertex's `@version`, and for an OpenAI fine-tune
 * (`ft:gpt-4o-mini-2024-07-18:org::id`) the base model's name.
 */
export function normalizeModelName(model: string): string {
  const lower = model.trim().toLowerCase();
  const name = lower.slice(lower.lastIndexOf('/') + 1);
  return name.replace(FINE_TUNE_PREFIX, '').replace(BEDROCK_PREFIX, '').replace(VERTEX_VERSION_SUFFIX, '');
}
