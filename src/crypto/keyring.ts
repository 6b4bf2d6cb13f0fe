import { type InspectOptions, inspect } from 'node:util';
import { EnvelopeError } from './crypto-errors.ts';
import { KEY_BYTES, KEY_ID_PATTERN, openEnvelope, parseEnvelope, sealEnvelope } from './envelope.ts';
import { assertPurpose, type Purpose } from './purposes.ts';

/** What a logged or serialized Keyring shows: ids only, never key material. */
export interface KeyringSummary {
  readonly activeId: string;
  readonly keyIds: readonly string[];
}

/**
 * The keys the gateway encrypts with (SPEC.md, Authentication: "Writes use the active id, and
 * reads accept any id in the keyring"). Keys are private copies held in memory; nothing reads
 * them back out, and `toJSON`/`util.inspect` show ids only.
 */
export class Keyring {
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly #activeId: string;

  /**
   * @param keys key id -> 32-byte key; copied, so later changes to the caller's buffers do not reach it
   * @param activeId the id every new envelope is sealed under; must be a key of `keys`
   */
  constructor(keys: ReadonlyMap<string, Uint8Array>, activeId: string) {
    const copies = new Map<string, Buffer>();
    for (const [id, key] of keys) {
      if (!KEY_ID_PATTERN.test(id)) throw new RangeError('keyring key id must match [A-Za-z0-9_.-]{1,64}');
      if (key.byteLength !== KEY_BYTES) throw new RangeError(`keyring keys must be ${KEY_BYTES} bytes`);
      copies.set(id, Buffer.from(key));
    }
    if (!copies.has(activeId)) throw new RangeError('the active key id is not in the keyring');
    this.#keys = copies;
    this.#activeId = activeId;
  }

  get activeId(): string {
    return this.#activeId;
  }

  get keyIds(): readonly string[] {
    return [...this.#keys.keys()];
  }

  has(keyId: string): boolean {
    return this.#keys.has(keyId);
  }

  /** Seals under the active key. A string is sealed as UTF-8 and must be well-formed (no lone surrogates). */
  seal(purpose: Purpose, plaintext: string | Uint8Array): string {
    assertPurpose(purpose);
    const key = this.#keys.get(this.#activeId)!;
    return sealEnvelope(key, this.#activeId, purpose, toBytes(plaintext));
  }

  /** Opens an envelope sealed for `purpose` under any key id of the keyring. */
  open(purpose: Purpose, envelope: string): Buffer {
    assertPurpose(purpose);
    const parts = parseEnvelope(envelope);
    if (parts.purpose !== purpose) {
      throw new EnvelopeError(
        'purpose_mismatch',
        `envelope was sealed for purpose "${parts.purpose}", not "${purpose}"`,
        { keyId: parts.keyId, purpose: parts.purpose },
      );
    }
    const key = this.#keys.get(parts.keyId);
    if (key === undefined) {
      throw new EnvelopeError(
        'unknown_key_id',
        `envelope key id "${parts.keyId}" is not in the keyring (ids: ${this.keyIds.join(', ')})`,
        { keyId: parts.keyId, purpose: parts.purpose },
      );
    }
    return openEnvelope(key, parts);
  }

  /** `open`, decoded as UTF-8. */
  openString(purpose: Purpose, envelope: string): string {
    return this.open(purpose, envelope).toString('utf8');
  }

  /** The key id an envelope names, without opening it; throws `malformed` if it is not an envelope. */
  keyIdOf(envelope: string): string {
    return parseEnvelope(envelope).keyId;
  }

  /** True when the envelope was sealed under the active id, i.e. rotation can leave it alone. */
  isActive(envelope: string): boolean {
    return this.keyIdOf(envelope) === this.#activeId;
  }

  /** Opens and seals again under the active id (with a fresh IV, even if it already was active). */
  reseal(purpose: Purpose, envelope: string): string {
    return this.seal(purpose, this.open(purpose, envelope));
  }

  toJSON(): KeyringSummary {
    return { activeId: this.#activeId, keyIds: this.keyIds };
  }

  [inspect.custom](_depth: number, options: InspectOptions, nodeInspect: typeof inspect): string {
    return `Keyring ${nodeInspect(this.toJSON(), options)}`;
  }
}

function toBytes(plaintext: string | Uint8Array): Uint8Array {
  if (typeof plaintext !== 'string') return plaintext;
  // Buffer.from would quietly turn a lone surrogate into U+FFFD and break the round trip.
  if (!plaintext.isWellFormed()) throw new TypeError('plaintext string is not well-formed UTF-16');
  return Buffer.from(plaintext, 'utf8');
}
