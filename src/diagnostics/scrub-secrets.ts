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

/** The process's own secrets (the master key), as written and URL-encoded: see `scrubProcessSecrets`. */
const processSecrets = new Set<string>();

/**
 * Remembers a secret this process holds (the master key), so that every log line is cleared of its
 * value wherever it appears (a query parameter of any name, a header echoed in an error), not only
 * under the names the logger knows.
 */
export function rememberProcessSecret(secret: string | undefined): void {
  if (secret === undefined || secret.length < MIN_KNOWN_SECRET_CHARS) return;
  processSecrets.add(secret);
  processSecrets.add(encodeURIComponent(secret));
}

/** `line` with every remembered process secret replaced: the logger's last step (logger.ts). */
export function scrubProcessSecrets(line: string): string {
  let scrubbed = line;
  for (const secret of processSecrets) {
    if (scrubbed.includes(secret)) scrubbed = scrubbed.replaceAll(secret, REDACTED);
  }
  return scrubbed;
}

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
 * `accessKeyId:secretAccessKey[:sessionToken]`), so an echo of one part is found too; each also
 * without its documented prefix (`sk-ant-api03-`...) and as an upstream may echo it encoded:
 * hex, and base64 or base64url at each of the three alignments it can take inside a longer
 * encoded text (a Basic header of `user:key`).
 */
export function credentialSecrets(credential: string | null): string[] {
  if (credential === null || credential === '') return [];
  const parts = credential.split(':').filter((part) => part.length >= MIN_KNOWN_SECRET_CHARS);
  const literal = parts.length > 1 ? [credential, ...parts] : [credential];
  const found = new Set<string>();
  for (const secret of literal) {
    for (const form of [secret, withoutPrefix(secret)]) {
      found.add(form);
      for (const encoded of encodings(form)) found.add(encoded);
    }
  }
  return [...found].filter((secret) => secret.length >= MIN_KNOWN_SECRET_CHARS);
}

/** Documented key prefixes, longest first: an echo may leave them out. */
const KEY_PREFIX = /^(?:sk-ant-(?:api|admin)\d\d-|sk-proj-|sk-ant-|sk-sy-|sk-)/;

function withoutPrefix(secret: string): string {
  return secret.replace(KEY_PREFIX, '');
}

function encodings(secret: string): string[] {
  const bytes = Buffer.from(secret);
  const forms = [bytes.toString('hex'), bytes.toString('hex').toUpperCase()];
  for (let offset = 0; offset < 3; offset++) {
    const shifted = Buffer.concat([Buffer.alloc(offset), bytes]);
    // Characters that mix the padding bytes, or a final partial group, depend on the neighbours.
    const start = [0, 2, 3][offset];
    const end = Math.floor(shifted.length / 3) * 4;
    const base64 = shifted.toString('base64').slice(start, end);
    forms.push(base64, base64.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return forms;
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
