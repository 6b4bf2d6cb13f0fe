/** Why an envelope could not be opened. */
export type EnvelopeErrorReason = 'malformed' | 'unknown_key_id' | 'purpose_mismatch' | 'tampered';

export interface EnvelopeErrorOptions {
  /** The key id the envelope names, when it could be read. Ids are names, never key material. */
  keyId?: string;
  /** The purpose the envelope names, when it could be read. */
  purpose?: string;
}

/**
 * An envelope could not be opened. Messages name key ids and purposes only: never plaintext,
 * ciphertext or key material, so the error is safe to log and to wrap in a 400.
 */
export class EnvelopeError extends Error {
  readonly reason: EnvelopeErrorReason;
  readonly keyId: string | undefined;
  readonly purpose: string | undefined;

  constructor(reason: EnvelopeErrorReason, message: string, options: EnvelopeErrorOptions = {}) {
    super(message);
    this.name = 'EnvelopeError';
    this.reason = reason;
    this.keyId = options.keyId;
    this.purpose = options.purpose;
  }
}

/** The environment variables whose values build a keyring (SPEC.md, Authentication). */
export type KeyringVariable =
  | 'CREDENTIALS_ENCRYPTION_KEY'
  | 'ENCRYPTION_KEYRING'
  | 'ACTIVE_ENCRYPTION_KEY_ID';

/**
 * A keyring setting breaks a rule. The message is one line that names the variable and the rule,
 * fit for a start-up failure, and never contains key material (no cause is attached either: a
 * JSON.parse error quotes the input).
 */
export class KeyringConfigError extends Error {
  readonly variable: KeyringVariable;

  constructor(variable: KeyringVariable, message: string) {
    super(message);
    this.name = 'KeyringConfigError';
    this.variable = variable;
  }
}

export function isEnvelopeError(value: unknown): value is EnvelopeError {
  return value instanceof EnvelopeError;
}
