import { timingSafeEqual } from 'node:crypto';
import { hashKeySecret } from './key-hash.ts';

/** The request parts a credential can come from (SPEC.md, Authentication). */
export interface CredentialSources {
  authorization: string | undefined;
  xApiKey: string | undefined;
  /** `?api_key=`, meant for EventSource clients. */
  queryApiKey: string | undefined;
}

function bearer(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const space = authorization.indexOf(' ');
  if (space === -1 || authorization.slice(0, space).toLowerCase() !== 'bearer') return undefined;
  const token = authorization.slice(space + 1).trim();
  return token === '' ? undefined : token;
}

/** `/v1/*`: Bearer, then `x-api-key`, then `?api_key=`. */
export function inferenceCredential(sources: CredentialSources): string | undefined {
  return (
    bearer(sources.authorization) ?? (sources.xApiKey || undefined) ?? (sources.queryApiKey || undefined)
  );
}

/** `/admin/*`: Bearer only. */
export function adminCredential(sources: CredentialSources): string | undefined {
  return bearer(sources.authorization);
}

/**
 * A presented credential and its SHA-256, computed once per request: the master key comparison
 * and the virtual key lookup both work on the digest.
 */
export interface Credential {
  secret: string;
  digest: Buffer;
}

export function credentialOf(secret: string): Credential {
  return { secret, digest: hashKeySecret(secret) };
}

/**
 * Constant-time comparison with the master key. Both sides are hashed first so the comparison
 * takes the same time whatever the candidate's length.
 */
export class MasterKey {
  readonly #digest: Buffer;

  constructor(masterKey: string) {
    this.#digest = hashKeySecret(masterKey);
  }

  matches(candidate: Credential): boolean {
    return timingSafeEqual(this.#digest, candidate.digest);
  }

  toJSON(): string {
    return '[MasterKey]';
  }
}
