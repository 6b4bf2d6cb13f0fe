export {
  EnvelopeError,
  type EnvelopeErrorReason,
  isEnvelopeError,
  KeyringConfigError,
  type KeyringVariable,
} from './crypto-errors.ts';
export { ENVELOPE_VERSION, parseEnvelope } from './envelope.ts';
export { Keyring, type KeyringSummary } from './keyring.ts';
export { generateKeyHex, keyringFromCredentialsKey, keyringFromJson } from './keyring-config.ts';
export { isPurpose, PURPOSES, type Purpose } from './purposes.ts';
