import type { CounterPoint, Labels, MetricDescriptor, MetricFamily } from './metric-family.ts';
import { OVERFLOW_LABELS, SeriesIndex } from './series-index.ts';

const COOLDOWNS: MetricDescriptor = {
  name: 'switchyard.router.cooldowns',
  description: 'Deployments put in cooldown by the router.',
  unit: '{cooldown}',
};

interface CooldownSeries {
  readonly labels: Labels;
  count: number;
}

function createSeries(values: readonly string[]): CooldownSeries {
  const [deploymentId, publicModel, reason] = values;
  return {
    labels: Object.freeze({
      'switchyard.deployment.id': deploymentId,
      'gen_ai.request.model': publicModel,
      'switchyard.cooldown.reason': reason,
    }),
    count: 0,
  };
}

/** The `switchyard.router.cooldowns` counter of one telemetry instance, in plain numbers. */
export class CooldownCounter {
  readonly #series = new SeriesIndex<readonly string[], CooldownSeries>(createSeries, () => ({
    labels: OVERFLOW_LABELS,
    count: 0,
  }));

  add(deploymentId: string, publicModel: string, reason: string): void {
    const values = [deploymentId, publicModel, reason];
    this.#series.get(values, values).count += 1;
  }

  families(): MetricFamily[] {
    const points: CounterPoint[] = this.#series.all().map((s) => ({ labels: s.labels, value: s.count }));
    return points.length === 0 ? [] : [{ kind: 'counter', descriptor: COOLDOWNS, points }];
  }
}
