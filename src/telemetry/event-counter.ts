import type { CounterPoint, Labels, MetricDescriptor, MetricFamily } from './metric-family.ts';
import { OVERFLOW_LABELS, SeriesIndex } from './series-index.ts';

interface EventSeries {
  readonly labels: Labels;
  count: number;
}

/** A counter of diagnostics events (cooldowns, bills past their bound), one series per label set. */
export class EventCounter {
  readonly #descriptor: MetricDescriptor;
  readonly #series: SeriesIndex<readonly string[], EventSeries>;

  /** `labelNames` name the values `add` takes, in the same order. */
  constructor(descriptor: MetricDescriptor, labelNames: readonly string[]) {
    this.#descriptor = descriptor;
    const createSeries = (values: readonly string[]): EventSeries => ({
      labels: Object.freeze(Object.fromEntries(labelNames.map((name, i) => [name, values[i] ?? '']))),
      count: 0,
    });
    this.#series = new SeriesIndex(createSeries, () => ({ labels: OVERFLOW_LABELS, count: 0 }));
  }

  add(...values: string[]): void {
    this.#series.get(values, values).count += 1;
  }

  families(): MetricFamily[] {
    const points: CounterPoint[] = this.#series.all().map((s) => ({ labels: s.labels, value: s.count }));
    return points.length === 0 ? [] : [{ kind: 'counter', descriptor: this.#descriptor, points }];
  }
}

/** `switchyard.router.cooldowns`: deployment id, public model, reason. */
export function cooldownCounter(): EventCounter {
  return new EventCounter(
    {
      name: 'switchyard.router.cooldowns',
      description: 'Deployments put in cooldown by the router.',
      unit: '{cooldown}',
    },
    ['switchyard.deployment.id', 'gen_ai.request.model', 'switchyard.cooldown.reason'],
  );
}

/** `switchyard.budget.bound_exceeded`: deployment id, upstream model. */
export function boundExceededCounter(): EventCounter {
  return new EventCounter(
    {
      name: 'switchyard.budget.bound_exceeded',
      description: 'Calls an upstream billed past the worst case their budget reserved (billed in full).',
      unit: '{call}',
    },
    ['switchyard.deployment.id', 'gen_ai.response.model'],
  );
}
