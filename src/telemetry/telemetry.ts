import type { Logger } from '../diagnostics/logger.ts';
import type { CallContext, CallOutcome } from '../pipeline/call-context.ts';
import type { FeatureModule } from '../pipeline/feature-module.ts';
import type { CallObserver } from '../pipeline/pipeline.ts';
import { type CallSummary, summarizeCall } from '../records/call-summary.ts';
import { capturedResponse, requestCapture } from '../records/response-capture.ts';
import { CallMetrics } from './call-metrics.ts';
import { subscribeDiagnostics } from './diagnostics-subscriber.ts';
import { boundExceededCounter, cooldownCounter } from './event-counter.ts';
import type { MetricFamily } from './metric-family.ts';
import type { OtlpExport } from './otlp-export.ts';
import { toPrometheusText } from './prometheus-text.ts';

/**
 * The model label of calls naming a model no deployment serves (refused `model_not_found`, or
 * `model_not_allowed` before that): the client chooses that name, so each would be a new series
 * (and span name); under one label the series stay bounded by what the operator configured.
 */
export const UNCONFIGURED_MODEL = '(unconfigured)';

/** OTLP/HTTP's default base URL (OpenTelemetry SDK configuration: OTEL_EXPORTER_OTLP_ENDPOINT). */
export const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';
/** How often metrics are pushed over OTLP; the last values are pushed on shutdown too. */
export const METRIC_EXPORT_INTERVAL_MS = 60_000;
/** Bound on the final flush at shutdown, so an unreachable collector cannot hold the exit. */
export const TELEMETRY_FLUSH_TIMEOUT_MS = 5_000;

export interface TelemetryOptions {
  /** OTEL_ENABLED: export traces and metrics over OTLP/HTTP. Metrics are kept for /metrics either way. */
  enabled: boolean;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the base URL; `/v1/traces` and `/v1/metrics` are appended. */
  endpoint: string | undefined;
  /** OTEL_LOG_PAYLOADS: full request, response and error payloads as span events. */
  logPayloads: boolean;
  logger: Logger;
  /**
   * True when the operator configured `publicModel` (a deployment serves it). Any other model is
   * labelled UNCONFIGURED_MODEL in metrics and spans. Without it every model counts as configured.
   */
  isConfiguredModel?: (publicModel: string) => boolean;
  serviceVersion?: string;
  metricExportIntervalMs?: number;
}

/**
 * OpenTelemetry for the gateway (SPEC.md, Events; DESIGN.md section 1): a call span with a child
 * per upstream attempt, and the call metrics, exported over OTLP/HTTP (JSON) when enabled and
 * served at `GET /metrics` in Prometheus text. An observer at the end of the pipeline's list.
 *
 * The metrics are counted in plain numbers (call-metrics.ts) either way; the OpenTelemetry SDK
 * exists only with export on, reading those counts at each export. With export off a call costs
 * a few Map lookups and additions, no span or SDK object is made, and the SDK is not even
 * imported (see otlp-export.ts): build it with `Telemetry.open`.
 */
export class Telemetry implements CallObserver {
  readonly name = 'telemetry';
  readonly #options: TelemetryOptions;
  readonly #metrics = new CallMetrics();
  readonly #cooldowns = cooldownCounter();
  readonly #boundExceeded = boundExceededCounter();
  /** Stops turning the diagnostics channels' events into log lines and metrics. */
  readonly #unsubscribeDiagnostics: () => void;
  #export: OtlpExport | null = null;
  #shutdown: Promise<void> | undefined;

  /** Loads and starts the OTLP export when enabled. */
  static async open(options: TelemetryOptions): Promise<Telemetry> {
    const telemetry = new Telemetry(options);
    if (!options.enabled) return telemetry;
    const { OtlpExport } = await import('./otlp-export.ts');
    telemetry.#export = new OtlpExport({
      endpoint: options.endpoint ?? DEFAULT_OTLP_ENDPOINT,
      serviceVersion: options.serviceVersion ?? '0.1.0',
      metricExportIntervalMs: options.metricExportIntervalMs ?? METRIC_EXPORT_INTERVAL_MS,
      families: () => telemetry.#families(),
    });
    return telemetry;
  }

  private constructor(options: TelemetryOptions) {
    this.#options = options;
    this.#unsubscribeDiagnostics = subscribeDiagnostics({
      logger: options.logger,
      cooldowns: this.#cooldowns,
      boundExceeded: this.#boundExceeded,
    });
  }

  onCallStarted(ctx: CallContext): void {
    if (this.#export !== null && this.#options.logPayloads) requestCapture(ctx);
  }

  onCallFinished(ctx: CallContext, outcome: CallOutcome): void {
    try {
      const call = this.#withModelLabel(summarizeCall(ctx, outcome));
      this.#metrics.record(call);
      if (this.#export === null) return;
      const payloads = this.#options.logPayloads
        ? { request: ctx.body, response: capturedResponse(ctx) }
        : null;
      this.#export.emitCall(call, payloads);
    } catch (error) {
      // Telemetry never fails a call; a defect here is worth one log line per call that hit it.
      this.#options.logger.warn({ err: error, requestId: ctx.requestId }, 'telemetry: call not recorded');
    }
  }

  #withModelLabel(call: CallSummary): CallSummary {
    const isConfigured = this.#options.isConfiguredModel;
    if (isConfigured === undefined || isConfigured(call.publicModel)) return call;
    return { ...call, publicModel: UNCONFIGURED_MODEL };
  }

  /** The metrics in Prometheus text format, for `GET /metrics`. */
  metricsText(): string {
    return toPrometheusText(this.#families());
  }

  #families(): MetricFamily[] {
    return [...this.#metrics.families(), ...this.#cooldowns.families(), ...this.#boundExceeded.families()];
  }

  /** The last call observer; its flush runs in the last shutdown phase, after the database closed. */
  readonly module: FeatureModule = {
    name: 'telemetry',
    observers: [this],
    shutdown: [{ phase: 'telemetry', name: 'opentelemetry', run: () => this.shutdown() }],
  };

  /** Flushes spans and metrics to the collector and stops (lifecycle phase `telemetry`). */
  shutdown(): Promise<void> {
    this.#shutdown ??= this.#close();
    return this.#shutdown;
  }

  async #close(): Promise<void> {
    this.#unsubscribeDiagnostics();
    const closing = this.#export?.shutdown() ?? Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), TELEMETRY_FLUSH_TIMEOUT_MS);
    });
    const result = await Promise.race([closing, timeout]);
    clearTimeout(timer);
    if (result === 'timeout') {
      this.#options.logger.warn({ timeoutMs: TELEMETRY_FLUSH_TIMEOUT_MS }, 'telemetry flush timed out');
    }
  }
}
