/**
 * Removes credentials from upstream wording before a client may see it
 * (UPSTREAM_ERROR_MESSAGES=passthrough): the deployment's own key wherever it appears, and
 * anything shaped like a credential a provider might echo (bearer tokens, OpenAI and Anthropic
 * `sk-` keys, Google `AIza` keys, AWS access key ids, `key=` query parameters).
 */
const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  /\bBearer\s+[A-Za-z0-9._~+/=-]+/gi,
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /([?&](?:key|api-key|api_key|access_token)=)[^&\s"']+/gi,
];

const REDACTED = '[redacted]';

/** `text` without `secrets` (each at least 4 characters) or anything credential-shaped. */
export function scrubCredentials(text: string, secrets: readonly (string | null)[] = []): string {
  let scrubbed = text;
  for (const secret of secrets) {
    if (secret !== null && secret.length >= 4) scrubbed = scrubbed.split(secret).join(REDACTED);
  }
  for (const pattern of CREDENTIAL_PATTERNS) {
    scrubbed = scrubbed.replace(pattern, (match, prefix?: string) =>
      typeof prefix === 'string' && match.startsWith(prefix) ? `${prefix}${REDACTED}` : REDACTED,
    );
  }
  return scrubbed;
}
