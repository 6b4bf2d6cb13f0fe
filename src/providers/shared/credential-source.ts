import type { CredentialFacts, CredentialSource } from '../types.ts';

/** Providers whose only credential is the deployment's stored key (or none, for a keyless server). */
export function storedKeyOrNone(facts: CredentialFacts): CredentialSource {
  return facts.hasApiKey ? 'static-key' : 'none';
}
