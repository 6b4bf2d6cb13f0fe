/**
 * The state one bench run shares between its steps: options, pinning, the long-lived processes,
 * the tenant configured on the gateway, and the results so far.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';
import { type GatewayProcess, type GatewaySettings, startGateway } from './gateway-process.ts';
import { type BenchKey, type BenchTenant, createBenchDeployment, createBenchKey } from './gateway-setup.ts';
import { LATE_SEND_MS } from './latency-summary.ts';
import type { LocalServices } from './local-services.ts';
import {
  type MeasureContext,
  measureScenario,
  type Phases,
  type ScenarioFigures,
  type ScenarioTarget,
} from './measure.ts';
import type { BenchOptions } from './options.ts';
import { type CorePlan, coreCount } from './pinning.ts';
import type { LoadTool } from './saturation.ts';
import { isSelected, type ScenarioResult, type ScenarioSpec } from './scenarios.ts';
import type { BenchStorage } from './storage.ts';
import type { Upstream } from './upstreams.ts';

/** Idle within this long after a phase is normal (two quiet 250 ms steps, plus a GC). */
const SLOW_SETTLE_MS = 2_000;
/** Load cores busier than this may have held the throughput down, not the server. */
const BUSY_LOAD_CORES = 0.9;

export class BenchSession {
  readonly options: BenchOptions;
  readonly runDir: string;
  readonly plan: CorePlan;
  readonly tool: LoadTool;
  readonly storage: BenchStorage;
  readonly fake: Upstream;
  readonly services: LocalServices;
  readonly results: ScenarioResult[] = [];
  readonly notes: string[] = [];
  #deploymentId: string | undefined;
  #key: BenchKey | undefined;
  #gateways = 0;

  constructor(fields: {
    options: BenchOptions;
    runDir: string;
    plan: CorePlan;
    tool: LoadTool;
    storage: BenchStorage;
    fake: Upstream;
    services: LocalServices;
  }) {
    this.options = fields.options;
    this.runDir = fields.runDir;
    this.plan = fields.plan;
    this.tool = fields.tool;
    this.storage = fields.storage;
    this.fake = fields.fake;
    this.services = fields.services;
  }

  selected(spec: ScenarioSpec): boolean {
    return isSelected(this.options.only, spec.id);
  }

  log(message: string): void {
    process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
  }

  context(plan: CorePlan = this.plan): MeasureContext {
    return {
      options: this.options,
      tool: this.tool,
      loadCores: plan.loadCores,
      busyCores: plan.applied ? plan.loadCores : null,
      loadThreads: plan.loadCores === null ? availableParallelism() : coreCount(plan.loadCores),
      scratchDir: this.runDir,
      services: this.services,
    };
  }

  /** Measures `spec` unless it was not selected; a failure is recorded, not thrown. */
  async measure(
    spec: ScenarioSpec,
    target: ScenarioTarget,
    options: { phases?: Phases; plan?: CorePlan; notes?: string[] } = {},
  ): Promise<void> {
    if (!this.selected(spec)) return;
    this.log(`(${spec.id}) ${spec.title}`);
    // Redis and Postgres go with the load, off this scenario's server cores.
    this.services.follow(options.plan ?? this.plan);
    try {
      const figures = await measureScenario(target, this.context(options.plan), options.phases);
      const notes = options.notes ?? [];
      notes.push(...this.#warnings(figures));
      this.results.push({ spec, status: 'measured', figures, notes });
    } catch (error) {
      this.unavailable(spec, 'failed', (error as Error).message);
    } finally {
      this.services.follow(this.plan);
    }
  }

  /** What makes a scenario's figures suspect, said next to them. */
  #warnings(figures: ScenarioFigures): string[] {
    const warnings: string[] = [];
    if (figures.rate !== null && this.options.rate > figures.saturation.rps / 2) {
      warnings.push(
        `the fixed rate (${this.options.rate}/s) is over half the saturation throughput: its latency includes queueing`,
      );
    }
    const late = figures.rate?.lateSends ?? 0;
    if (figures.rate !== null && late > figures.rate.count / 100) {
      warnings.push(
        `the fixed-rate generator sent ${late} calls over ${LATE_SEND_MS} ms late (its core is busy)`,
      );
    }
    if (figures.loadCoresBusy !== null && figures.loadCoresBusy > BUSY_LOAD_CORES) {
      const who = ['load generator', 'fake upstream', ...this.services.pinnedLabels].join(', ');
      warnings.push(
        `the load cores were ${Math.round(figures.loadCoresBusy * 100)}% busy (${who}): this throughput may be bounded by the load side, not the server`,
      );
    }
    const slow = figures.settledMs.filter((ms) => ms > SLOW_SETTLE_MS);
    if (slow.length > 0) {
      warnings.push(
        `the server stayed busy ${slow.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')} after a phase (a backlog)`,
      );
    }
    return warnings;
  }

  unavailable(spec: ScenarioSpec, status: 'not available' | 'failed' | 'skipped', reason: string): void {
    if (!this.selected(spec)) return;
    this.log(`(${spec.id}) ${status}: ${reason}`);
    this.results.push({ spec, status, reason });
  }

  /** Starts a gateway with these settings (defaults: one worker, the run's log level, pinned). */
  async startGateway(settings: Partial<GatewaySettings> & { label: string }): Promise<GatewayProcess> {
    const index = ++this.#gateways;
    const gateway = await startGateway(
      {
        workers: 1,
        logLevel: this.options.logLevel,
        responseCacheTtlMs: 0,
        cores: this.plan.serverCores,
        cpuProfileDir: null,
        nodeArgs: this.options.gatewayNodeArgs,
        logFile: join(this.runDir, `gateway-${index}-${settings.label}.log`),
        port: await freePort(),
        ...settings,
      },
      this.storage,
    );
    this.log(`gateway ${settings.label} listening on ${gateway.origin} (pids ${gateway.pids().join(', ')})`);
    this.notes.push(
      `gateway ${settings.label}: ${gateway.idleRssMb} MB resident when ready, before any load`,
    );
    return gateway;
  }

  /**
   * The bench deployment and key, created once through the admin API of the first gateway that
   * asks; later gateways share the storage, so they find both there.
   */
  async tenant(gateway: GatewayProcess): Promise<BenchTenant> {
    const { masterKey } = this.storage;
    this.#deploymentId ??= await createBenchDeployment(gateway.origin, masterKey, this.fake.origin);
    this.#key ??= await createBenchKey(gateway.origin, masterKey);
    return { deploymentId: this.#deploymentId, ...this.#key };
  }
}
