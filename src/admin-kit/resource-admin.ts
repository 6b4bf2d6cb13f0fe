import type { PageRequest } from './pagination.ts';

/** What a resource's repository must offer for the reads and the delete every admin resource has. */
export interface ResourceRepository<Row> {
  find(id: string): Promise<Row | undefined>;
  /** Up to `limit + 1` rows after `afterId`, in id order (the extra row says another page exists). */
  list(page: PageRequest): Promise<Row[]>;
  /** False when there was no such row. */
  delete(id: string): Promise<boolean>;
}

/**
 * What the admin resources do alike: reads go straight to the repository, and every committed
 * change is announced (each resource says how, in `announce`) before the caller gets an answer.
 * A missing row is `undefined` or `false`, never an error: the routes turn it into a 404.
 * Subclasses add create and update, with their own rules.
 */
export abstract class ResourceAdmin<Row> {
  readonly #repository: ResourceRepository<Row>;

  constructor(repository: ResourceRepository<Row>) {
    this.#repository = repository;
  }

  list(page: PageRequest): Promise<Row[]> {
    return this.#repository.list(page);
  }

  get(id: string): Promise<Row | undefined> {
    return this.#repository.find(id);
  }

  async delete(id: string): Promise<boolean> {
    const deleted = await this.#repository.delete(id);
    if (deleted) await this.announce(id);
    return deleted;
  }

  /** Announces the change of `row` when there was one (undefined: no such row, nothing changed). */
  protected async changed(id: string, row: Row | undefined): Promise<Row | undefined> {
    if (row !== undefined) await this.announce(id);
    return row;
  }

  /** Makes a committed change of row `id` seen on this replica and the others. */
  protected abstract announce(id: string): Promise<void>;
}
