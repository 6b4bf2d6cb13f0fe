import { GatewayError } from '../errors/gateway-error.ts';
import {
  adminCredential,
  type CredentialSources,
  credentialOf,
  inferenceCredential,
  type MasterKey,
} from './credentials.ts';
import { isKeyUsable, type Principal, type VirtualKeyResolver } from './principal.ts';

const MASTER: Principal = Object.freeze({ kind: 'master' });

/** Authenticates the two surfaces of SPEC.md (Authentication). */
export class Authenticator {
  readonly #masterKey: MasterKey;
  readonly #keys: VirtualKeyResolver;

  constructor(masterKey: MasterKey, keys: VirtualKeyResolver) {
    this.#masterKey = masterKey;
    this.#keys = keys;
  }

  /** `/v1/*`: the master key or a usable virtual key; otherwise 401 invalid_api_key. */
  async inference(sources: CredentialSources): Promise<Principal> {
    const credential = inferenceCredential(sources);
    if (credential === undefined) throw new GatewayError('invalid_api_key');
    const presented = credentialOf(credential);
    if (this.#masterKey.matches(presented)) return MASTER;
    const key = await this.#keys.resolve(presented);
    if (key === null || !isKeyUsable(key, Date.now())) throw new GatewayError('invalid_api_key');
    return { kind: 'virtual', key };
  }

  /** `/admin/*`: the master key by Bearer only; a virtual key is refused with 401. */
  admin(sources: CredentialSources): Principal {
    const credential = adminCredential(sources);
    if (credential === undefined || !this.#masterKey.matches(credentialOf(credential))) {
      throw new GatewayError('invalid_api_key');
    }
    return MASTER;
  }
}
