/**
 * The betas Claude on Bedrock takes (Bedrock user guide, "Anthropic Claude Messages API":
 * `anthropic_beta`). Bedrock refuses a whole request naming any other with 400 "invalid beta
 * flag", and Anthropic clients send first-party betas Bedrock lacks (Claude Code:
 * `thinking-token-count-*`, `advanced-tool-use-*`, `prompt-caching-scope-*`), so a client's beta
 * outside this list is left out: its feature is what Bedrock does not offer. Anthropic's
 * `advanced-tool-use-2025-11-20` (tool search) is Bedrock's `tool-search-tool-2025-10-19`. The
 * deployment's own `providerOptions.betas` are sent as configured.
 */
const BEDROCK_CLAUDE_BETAS: ReadonlySet<string> = new Set([
  'claude-code-20250219',
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'computer-use-2025-11-24',
  'context-1m-2025-08-07',
  'context-management-2025-06-27',
  'dev-full-thinking-2025-05-14',
  'effort-2025-11-24',
  'interleaved-thinking-2025-05-14',
  'output-128k-2025-02-19',
  'structured-outputs-2025-11-13',
  'token-efficient-tools-2025-02-19',
  'tool-examples-2025-10-29',
  'tool-search-tool-2025-10-19',
]);

/** First-party names of features Bedrock offers under its own beta name. */
const BEDROCK_NAMES: Readonly<Record<string, string>> = Object.freeze({
  'advanced-tool-use-2025-11-20': 'tool-search-tool-2025-10-19',
});

/** The client's betas as Bedrock takes them: renamed where Bedrock has its own name, others left out. */
export function bedrockClientBetas(client: readonly string[]): string[] {
  return client.map((beta) => BEDROCK_NAMES[beta] ?? beta).filter((beta) => BEDROCK_CLAUDE_BETAS.has(beta));
}
