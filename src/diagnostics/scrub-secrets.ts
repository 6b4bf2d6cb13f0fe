/**
 * Removes credentials from text the gateway did not write itself (upstream error bodies, client
 * URLs) before it reaches a log line, a record or an admin answer (SPEC.md: no secret in a log
 * line or a record). Two nets: the secrets this process knows (a deployment's credential, the
 * master key), replaced wherever they appear, and anything shaped like a credential, whoever it
 * belongs to. Runs only on failures and on URLs with a query, never on a call's hot path.
 */

export const REDACTED = '[redacted]';

/** Credentials shorter than this are not searched for literally: too likely to match ordinary text. */
const MIN_KNOWN_SECRET_CHARS = 8;

/**
 * Shapes of credentials, by their documented prefixes: OpenAI and Anthropic keys (`sk-`,
 * `sk-proj-`, `sk-ant-`), Switchyard virtual keys (`sk-sy-`), Google API keys (`AIza` and 35
 * characters), AWS access key ids (`AKIA`/`ASIA` and 16), and an Authorization value (`Bearer`,
 * `Basic`, AWS SigV4's `Credential=`/`Signature=`).
 */
const SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bsk-[A-Za-z0-9_-]{8,}/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{35}/g, REDACTED],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`],
  [/\b(Credential|Signature)=[A-Za-z0-9/_+=-]{8,}/g, `$1=${REDACTED}`],
];

/**
 * `name: value` and `name=value` pairs whose name says it holds a credential (api_key, x-api-key,
 * access_token, secret, password...): the value goes, the name stays, so the text still says what
 * was there. `tokens` (max_tokens and the like) does not match: `token` must end the name.
 */
const NAMED_VALUE =
  /((?:api[_-]?key|access[_-]?key|secret(?:[_-]?access[_-]?key)?|(?:access|refresh|id|session|auth)?[_-]?token|password|x-goog-api-key|x-api-key)["']?\s*[:=]\s*["']?)([^\s"'&,;}]{8,})/gi;

/** Replaces every credential in `text`; `known` are literal secrets of this process. */
export function scrubSecretText(text: string, known: readonly string[] = []): string {
  let scrubbed = text;
  for (const secret of known) {
    if (secret.length >= MIN_KNOWN_SECRET_CHARS && scrubbed.includes(secret)) {
      scrubbed = scrubbed.replaceAll(secret, REDACTED);
    }
  }
  for (const [shape, replacement] of SHAPES) scrubbed = scrubbed.replace(shape, replacement);
  return scrubbed.replace(NAMED_VALUE, `$1${REDACTED}`);
}

/**
 * `value` with every string scrubbed (object keys included), as a new value; the same value when
 * nothing was found, so a clean detail is not copied.
 */
export function scrubSecrets(value: unknown, known: readonly string[] = []): unknown {
  if (typeof value === 'string') return scrubSecretText(value, known);
  if (Array.isArray(value)) {
    const items = value.map((item) => scrubSecrets(item, known));
    return items.every((item, index) => item === value[index]) ? value : items;
  }
  if (typeof value !== 'object' || value === null) return value;
  let changed = false;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const cleanKey = scrubSecretText(key, known);
    const cleanItem = scrubSecrets(item, known);
    changed ||= cleanKey !== key || cleanItem !== item;
    copy[cleanKey] = cleanItem;
  }
  return changed ? copy : value;
}

/**
 * The literal secrets of a credential: itself, and each `:`-separated part of it (Bedrock's
 * `accessKeyId:secretAccessKey[:sessionToken]`), so an echo of one part is found too.
 */
export function credentialSecrets(credential: string | null): string[] {
  if (credential === null || credential === '') return [];
  const parts = credential.split(':').filter((part) => part.length >= MIN_KNOWN_SECRET_CHARS);
  return parts.length > 1 ? [credential, ...parts] : [credential];
}

/**
 * Query parameters that carry a credential, by their decoded name, ignoring case and `-`, `_`,
 * `.`: `api_key` (SPEC.md, Authentication) and what other clients send (`key`, `api-key`,
 * `token`, `access_token`, `signature`...). An id (`keyId` of /admin/logs) is no credential.
 */
export function isCredentialParameter(decodedName: string): boolean {
  const name = decodedName.toLowerCase().replace(/[-_\s.]/g, '');
  return !name.endsWith('id') && /key|token|secret|passw|auth|signature|credential|sig$/.test(name);
}
