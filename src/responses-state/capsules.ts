/**
 * Compaction capsules (variant B; DESIGN.md section 5): a conversation sealed in a purpose-bound
 * envelope (`responses-capsule`) that the client holds and sends back as a `compaction` item, so
 * nothing is stored server-side. A capsule is bound to the key it was issued to (the master key
 * may open any), and opens while its key id stays in the keyring, whatever the active id.
 */
import type { Principal } from '../auth/principal.ts';
import { isEnvelopeError, type Keyring } from '../crypto/index.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { isRecord } from '../formats/json.ts';
import type { ConversationItem } from './conversation.ts';

/** The capsule's plaintext layout; `v` lets a later layout be told apart. */
interface CapsuleContent {
  v: 1;
  /** The key the capsule was issued to; null: the master key. */
  owner: string | null;
  items: ConversationItem[];
}

export function ownerOf(principal: Principal): string | null {
  return principal.kind === 'virtual' ? principal.key.id : null;
}

function unreadable(message: string): GatewayError {
  return new GatewayError('invalid_request', { param: 'input', message });
}

export class CapsuleSealer {
  readonly #keyring: Keyring;

  constructor(keyring: Keyring) {
    this.#keyring = keyring;
  }

  seal(items: ConversationItem[], principal: Principal): string {
    const content: CapsuleContent = { v: 1, owner: ownerOf(principal), items };
    return this.#keyring.seal('responses-capsule', JSON.stringify(content));
  }

  /** The items a capsule holds; a 400 naming `input` when it cannot be opened or is not the caller's. */
  open(encrypted: unknown, principal: Principal): ConversationItem[] {
    if (typeof encrypted !== 'string') {
      throw unreadable('A compaction item needs its encrypted_content (a string).');
    }
    const content = this.#read(encrypted);
    const owner = ownerOf(principal);
    if (owner !== null && content.owner !== owner) {
      throw unreadable('This compaction item was issued to another key.');
    }
    return content.items;
  }

  #read(encrypted: string): CapsuleContent {
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.#keyring.openString('responses-capsule', encrypted));
    } catch (error) {
      if (!isEnvelopeError(error) && !(error instanceof SyntaxError)) throw error;
      throw unreadable(
        'The encrypted_content of a compaction item cannot be opened: it was altered or truncated, or its key is no longer in this gateway keyring.',
      );
    }
    if (!isCapsuleContent(parsed))
      throw unreadable('The compaction item holds no conversation this gateway can read.');
    return parsed;
  }
}

function isCapsuleContent(value: unknown): value is CapsuleContent {
  return (
    isRecord(value) &&
    value.v === 1 &&
    (value.owner === null || typeof value.owner === 'string') &&
    Array.isArray(value.items) &&
    value.items.every(isRecord)
  );
}
