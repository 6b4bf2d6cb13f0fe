import type { Principal } from '../auth/principal.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { CapsuleSealer } from './capsules.ts';
import { type ConversationItem, continuationOf, inputItems } from './conversation.ts';
import type { ResponseStateStore } from './state-store.ts';

/** The request fields a conversation is made from (`POST /v1/responses` and `/v1/responses/compact`). */
export interface ConversationRequest {
  input?: unknown;
  previous_response_id?: unknown;
}

const COMPACTION = 'compaction';

function isCompactionItem(item: unknown): item is { type: 'compaction'; encrypted_content?: unknown } {
  return typeof item === 'object' && item !== null && (item as { type?: unknown }).type === COMPACTION;
}

/**
 * Turns a request's `previous_response_id` and `compaction` items into the plain conversation they
 * stand for, so that every provider, native or translated, is sent the whole conversation.
 */
export class ConversationExpander {
  readonly #store: ResponseStateStore;
  /** Null in variant A, which has no capsules. */
  readonly #capsules: CapsuleSealer | null;

  constructor(store: ResponseStateStore, capsules: CapsuleSealer | null) {
    this.#store = store;
    this.#capsules = capsules;
  }

  /** True when the request refers to state the upstream cannot see: checked without I/O. */
  refersToState(request: ConversationRequest): boolean {
    return (
      typeof request.previous_response_id === 'string' ||
      (Array.isArray(request.input) && request.input.some(isCompactionItem))
    );
  }

  /** The stored conversation of `previous_response_id` (if any), then `input` with its capsules opened. */
  async expand(request: ConversationRequest, principal: Principal): Promise<ConversationItem[]> {
    const previous = await this.#previous(request.previous_response_id, principal);
    const items: ConversationItem[] = [...previous];
    for (const item of inputItems(request.input)) {
      if (isCompactionItem(item)) items.push(...this.#open(item.encrypted_content, principal));
      else items.push(item);
    }
    return items;
  }

  async #previous(id: unknown, principal: Principal): Promise<ConversationItem[]> {
    if (typeof id !== 'string') return [];
    const stored = await this.#store.find(id, principal);
    if (stored === null) {
      throw new GatewayError('previous_response_not_found', {
        param: 'previous_response_id',
        message: `Previous response with id '${id}' not found.`,
      });
    }
    return continuationOf(stored);
  }

  #open(encrypted: unknown, principal: Principal): ConversationItem[] {
    if (this.#capsules === null) {
      throw new GatewayError('invalid_request', {
        param: 'input',
        message:
          'Compaction items are not served by this gateway (GATEWAY_VARIANT=a has no compaction capsules).',
      });
    }
    return this.#capsules.open(encrypted, principal);
  }
}
