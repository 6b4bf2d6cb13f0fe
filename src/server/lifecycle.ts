import type { Logger } from '../telemetry/logger.ts';

/**
 * The shutdown order of SPEC.md cross-cutting rule 3: stop accepting and drain HTTP, flush the
 * in-process queues, close the cache store, close the database, flush telemetry.
 */
export const SHUTDOWN_PHASES = ['drain', 'flush', 'close-cache', 'close-database', 'telemetry'] as const;
export type ShutdownPhase = (typeof SHUTDOWN_PHASES)[number];

interface Step {
  name: string;
  run(): Promise<void>;
}

export class Lifecycle {
  readonly #steps = new Map<ShutdownPhase, Step[]>(SHUTDOWN_PHASES.map((p) => [p, []]));
  readonly #logger: Logger;
  #closing: Promise<void> | undefined;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Registers a step; steps of one phase run in reverse order of registration (last opened, first closed). */
  onShutdown(phase: ShutdownPhase, name: string, run: () => Promise<void>): void {
    this.#steps.get(phase)?.unshift({ name, run });
  }

  get closing(): boolean {
    return this.#closing !== undefined;
  }

  /** Runs every phase once, in order; a failing step is logged and the next still runs. */
  shutdown(): Promise<void> {
    this.#closing ??= this.#runAll();
    return this.#closing;
  }

  async #runAll(): Promise<void> {
    for (const phase of SHUTDOWN_PHASES) {
      for (const step of this.#steps.get(phase) ?? []) {
        try {
          await step.run();
        } catch (error) {
          this.#logger.error({ err: error, phase, step: step.name }, 'shutdown step failed');
        }
      }
    }
  }
}
