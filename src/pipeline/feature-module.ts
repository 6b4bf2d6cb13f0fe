import type { ReadinessProbe } from '../diagnostics/readiness-probe.ts';
import type { CallObserver, PipelineOptions } from './pipeline.ts';
import type { AnswerStage, Stage } from './stage.ts';

/**
 * The shutdown order of SPEC.md cross-cutting rule 3: stop accepting and drain HTTP, flush the
 * in-process queues, close the cache store, close the database, flush telemetry.
 */
export const SHUTDOWN_PHASES = ['drain', 'flush', 'close-cache', 'close-database', 'telemetry'] as const;
export type ShutdownPhase = (typeof SHUTDOWN_PHASES)[number];

/**
 * The places of the call stages, in DESIGN.md section 4 order (run once per call). A feature puts
 * each of its call stages in one place; the pipeline runs the places in this order.
 */
export const CALL_PLACES = ['cache-prefetch', 'admission', 'before-upstream', 'cache-lookup'] as const;
export type CallPlace = (typeof CALL_PLACES)[number];

/**
 * The places of the answer stages, in order: the order of the wrapping, so a later stage sees
 * what the earlier ones returned (the usage is metered on the upstream's own answer; the cache
 * keeps the answer as the extensions left it; the stored response is the one the client gets;
 * the records capture last).
 */
export const ANSWER_PLACES = ['meter', 'after-upstream', 'cache-store', 'state-write', 'capture'] as const;
export type AnswerPlace = (typeof ANSWER_PLACES)[number];

export interface ShutdownStep {
  readonly phase: ShutdownPhase;
  readonly name: string;
  /** `remainingMs`: what is left of the shutdown budget when the step starts. */
  run(remainingMs: number): Promise<void>;
}

/**
 * What a feature plugs into the gateway: its stages in their places, its call observers, its
 * readiness probe, its periodic jobs and its shutdown steps. The composition root lists the
 * modules in DESIGN.md section 4 order and nothing else; `assemblePipeline` and the root's
 * lifecycle read the rest from here. (A feature's admin routes are the routes layer's, in
 * `api/admin/`, over the admin object the feature exports: routes sit above the features.)
 */
export interface FeatureModule {
  readonly name: string;
  /** Per model, before the model checks (the stored-conversation expansion). */
  readonly preflight?: readonly Stage[];
  readonly call?: Readonly<Partial<Record<CallPlace, Stage>>>;
  readonly answer?: Readonly<Partial<Record<AnswerPlace, AnswerStage>>>;
  /** Once the call is over, in the order of the module list (settlement, records, telemetry). */
  readonly observers?: readonly CallObserver[];
  readonly probes?: readonly ReadinessProbe[];
  /** Starts the feature's queues and periodic jobs, once the gateway is assembled. */
  start?(): void;
  /**
   * Registered in list order; within a phase the steps run in reverse (last opened, first
   * closed), so a module listed first closes last.
   */
  readonly shutdown?: readonly ShutdownStep[];
}

/** The pipeline's stage and observer lists from the modules, in their places and list order. */
export function assemblePipeline(
  modules: readonly FeatureModule[],
  checks: readonly Stage[],
): Pick<PipelineOptions, 'preflight' | 'call' | 'answer' | 'observers'> {
  const present = <T>(items: readonly (T | undefined)[]): T[] => items.filter((item) => item !== undefined);
  return {
    preflight: [...modules.flatMap((module) => module.preflight ?? []), ...checks],
    call: present(CALL_PLACES.flatMap((place) => modules.map((module) => module.call?.[place]))),
    answer: present(ANSWER_PLACES.flatMap((place) => modules.map((module) => module.answer?.[place]))),
    observers: modules.flatMap((module) => module.observers ?? []),
  };
}
