import { randomUUID } from 'node:crypto';
import type { Tracer } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { CallSummary } from '../records/call-summary.ts';
import { type CallPayloads, emitCallSpans } from './call-spans.ts';
import { FamilyProducer } from './family-producer.ts';
import type { MetricFamily } from './metric-family.ts';

export interface OtlpExportOptions {
  /** The base URL; `/v1/traces` and `/v1/metrics` are appended. */
  endpoint: string;
  serviceVersion: string;
  metricExportIntervalMs: number;
  /** The in-process metrics, read at each export. */
  families: () => readonly MetricFamily[];
}

/**
 * The OpenTelemetry SDK side of telemetry.ts: its own module so that it is imported only with
 * export on. The SDK, the OTLP exporters and their transformers are sizeable once loaded
 * (docs/decisions/hot-path.md), which a gateway with export off (the default) must not carry.
 */
export class OtlpExport {
  readonly #meterProvider: MeterProvider;
  readonly #tracerProvider: BasicTracerProvider;
  readonly #tracer: Tracer;

  constructor(options: OtlpExportOptions) {
    const resource = resourceFromAttributes({
      [ATTR_SERVICE_NAME]: 'switchyard',
      [ATTR_SERVICE_VERSION]: options.serviceVersion,
      'service.instance.id': randomUUID(),
    });
    const base = options.endpoint.replace(/\/+$/, '');
    this.#meterProvider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter({ url: `${base}/v1/metrics` }),
          exportIntervalMillis: options.metricExportIntervalMs,
          metricProducers: [new FamilyProducer(options.families, resource, Date.now())],
        }),
      ],
    });
    this.#tracerProvider = new BasicTracerProvider({
      resource,
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${base}/v1/traces` }))],
    });
    this.#tracer = this.#tracerProvider.getTracer('switchyard');
  }

  emitCall(call: CallSummary, payloads: CallPayloads | null): void {
    emitCallSpans(this.#tracer, call, payloads);
  }

  /** Flushes spans and metrics to the collector and stops. */
  async shutdown(): Promise<void> {
    await Promise.allSettled([this.#tracerProvider.shutdown(), this.#meterProvider.shutdown()]);
  }
}
