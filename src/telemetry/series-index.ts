interface Node<T> {
  readonly next: Map<string, Node<T>>;
  series: T | undefined;
}

/**
 * Series per metric, as the OpenTelemetry SDK's default cardinality limit: label values can come
 * from the client (the model of a `model_not_found` call), so their combinations must not grow
 * without bound. Past the limit, new combinations share one overflow series.
 */
export const MAX_SERIES = 2000;

/** The attribute of the overflow series (OpenTelemetry metrics SDK specification, cardinality limits). */
export const OVERFLOW_LABELS = Object.freeze({ 'otel.metric.overflow': true });

/**
 * Series by their label values, one Map level per label. A call finds its series with a lookup
 * per label of strings it already holds (no key string built, no attribute hashing); a series,
 * with its label object, is built from `seed` once, the first time its combination is seen.
 */
export class SeriesIndex<S, T> {
  readonly #root: Node<T> = { next: new Map(), series: undefined };
  readonly #all: T[] = [];
  readonly #create: (seed: S) => T;
  readonly #createOverflow: () => T;
  readonly #limit: number;
  #overflow: T | undefined;

  constructor(create: (seed: S) => T, createOverflow: () => T, limit = MAX_SERIES) {
    this.#create = create;
    this.#createOverflow = createOverflow;
    this.#limit = limit;
  }

  get(values: readonly string[], seed: S): T {
    let node = this.#root;
    for (const value of values) {
      let next = node.next.get(value);
      if (next === undefined) {
        if (this.#full()) return this.#overflowSeries();
        next = { next: new Map(), series: undefined };
        node.next.set(value, next);
      }
      node = next;
    }
    if (node.series === undefined) {
      if (this.#full()) return this.#overflowSeries();
      node.series = this.#create(seed);
      this.#all.push(node.series);
    }
    return node.series;
  }

  /** Every series, in the order first seen, then the overflow series if any. */
  all(): readonly T[] {
    return this.#overflow === undefined ? this.#all : [...this.#all, this.#overflow];
  }

  /** One place is kept for the overflow series, so a metric never has more than the limit. */
  #full(): boolean {
    return this.#all.length >= this.#limit - 1;
  }

  #overflowSeries(): T {
    this.#overflow ??= this.#createOverflow();
    return this.#overflow;
  }
}
