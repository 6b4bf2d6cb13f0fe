/**
 * The `response_states` table (migration 0008): one row per stored response, its content sealed
 * (`responses-state`) in variant B and plain JSON in variant A. Reads see a row only while it has
 * not expired and only by its owner (the master key sees every row): an expired, deleted or
 * foreign row reads as absent, never as "exists but not yours".
 */
import { sql } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import type { Variant } from '../config.ts';
import type { Keyring } from '../crypto/index.ts';
import type { Logger } from '../diagnostics/logger.ts';
import type { Db } from '../store/database.ts';
import { ownerOf } from './capsules.ts';
import type { StoredConversation } from './conversation.ts';
import { type ExpiryPolicy, notExpired } from './expiry.ts';

export interface NewResponseState extends StoredConversation {
  id: string;
  owner: Principal;
  publicModel: string;
  status: string;
}

export interface ResponseStateStoreOptions {
  /** Request-path statements (bounded by DEPENDENCY_TIMEOUT_MS). */
  db: Db;
  keyring: Keyring;
  variant: Variant;
  expiry: ExpiryPolicy;
  logger: Logger;
}

export class ResponseStateStore {
  readonly #options: ResponseStateStoreOptions;

  constructor(options: ResponseStateStoreOptions) {
    this.#options = options;
  }

  async insert(state: NewResponseState): Promise<void> {
    const content = JSON.stringify({
      input: state.input,
      response: state.response,
    } satisfies StoredConversation);
    const sealed = this.#options.variant === 'b';
    await this.#options.db
      .insertInto('response_states')
      .values({
        id: state.id,
        owner_key_id: ownerOf(state.owner),
        public_model: state.publicModel,
        status: state.status,
        expires_at: sql<Date>`now() + make_interval(days => ${this.#options.expiry.retentionDays})`,
        content: sealed ? null : content,
        envelope: sealed ? this.#options.keyring.seal('responses-state', content) : null,
        envelope_key_id: sealed ? this.#options.keyring.activeId : null,
      })
      .execute();
  }

  /** The stored conversation of `id` as `viewer` may see it; null when absent, expired or foreign. */
  async find(id: string, viewer: Principal): Promise<StoredConversation | null> {
    const row = await this.#visible(id, viewer).select(['id', 'content', 'envelope']).executeTakeFirst();
    if (row === undefined) return null;
    return this.#read(row.id, row.content, row.envelope);
  }

  /** Early deletion; false when `viewer` sees no such response. */
  async delete(id: string, viewer: Principal): Promise<boolean> {
    const query = this.#options.db
      .deleteFrom('response_states')
      .where('id', '=', id)
      .where(notExpired(this.#options.expiry));
    const owned = viewer.kind === 'master' ? query : query.where('owner_key_id', '=', viewer.key.id);
    const result = await owned.executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  #visible(id: string, viewer: Principal) {
    const query = this.#options.db
      .selectFrom('response_states')
      .where('id', '=', id)
      .where(notExpired(this.#options.expiry));
    return viewer.kind === 'master' ? query : query.where('owner_key_id', '=', viewer.key.id);
  }

  /**
   * A row whose envelope this keyring cannot open (its key id was removed) reads as absent: the
   * conversation is lost either way, and the log says why without a word of its content.
   */
  #read(id: string, content: string | null, envelope: string | null): StoredConversation | null {
    if (content !== null) return JSON.parse(content) as StoredConversation;
    try {
      return JSON.parse(
        this.#options.keyring.openString('responses-state', envelope ?? ''),
      ) as StoredConversation;
    } catch (error) {
      this.#options.logger.warn(
        { responseId: id, err: error instanceof Error ? error.message : String(error) },
        'stored response cannot be opened with this keyring; answered as not found',
      );
      return null;
    }
  }
}
