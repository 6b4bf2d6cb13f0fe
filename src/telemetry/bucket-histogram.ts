import type { HistogramPoint, Labels } from './metric-family.ts';

/**
 * An explicit-bucket histogram kept in plain numbers, with the bucket rule of the OpenTelemetry
 * SDK (a value equal to a boundary falls in that boundary's bucket, like Prometheus' `le`).
 */
export class BucketHistogram {
  readonly #boundaries: readonly number[];
  readonly #counts: number[];
  #sum = 0;
  #count = 0;
  #min = Number.POSITIVE_INFINITY;
  #max = Number.NEGATIVE_INFINITY;

  constructor(boundaries: readonly number[]) {
    this.#boundaries = boundaries;
    this.#counts = new Array<number>(boundaries.length + 1).fill(0);
  }

  get count(): number {
    return this.#count;
  }

  record(value: number): void {
    // The SDK drops NaN and negative values for histograms; so do we.
    if (!(value >= 0)) return;
    const boundaries = this.#boundaries;
    let bucket = 0;
    while (bucket < boundaries.length && boundaries[bucket] < value) bucket += 1;
    this.#counts[bucket] += 1;
    this.#sum += value;
    this.#count += 1;
    if (value < this.#min) this.#min = value;
    if (value > this.#max) this.#max = value;
  }

  point(labels: Labels): HistogramPoint {
    return {
      labels,
      boundaries: this.#boundaries,
      counts: [...this.#counts],
      sum: this.#sum,
      count: this.#count,
      min: this.#min,
      max: this.#max,
    };
  }
}
