import type { Logger } from '../diagnostics/logger.ts';
import { SHUTDOWN_PHASES, type ShutdownPhase } from '../pipeline/feature-module.ts';
import { withTimeout } from '../store/database-errors.ts';

interface Step {
  name: string;
  /** `remainingMs`: what is left of the shutdown budget when the step starts. */
  run(remainingMs: number): Promise<void>;
}

export class Lifecycle {
  readonly #steps = new Map<ShutdownPhase, Step[]>(SHUTDOWN_PHASES.map((p) => [p, []]));
  readonly #logger: Logger;
  #closing: Promise<void> | undefined;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Registers a step; steps of one phase run in reverse order of registration (last opened, first closed). */
  onShutdown(phase: ShutdownPhase, name: string, run: (remainingMs: number) => Promise<void>): void {
    this.#steps.get(phase)?.unshift({ name, run });
  }

  get closing(): boolean {
    return this.#closing !== undefined;
  }

  /**
   * Runs every phase once, in order; a failing step is logged and the next still runs. With a
   * budget (SHUTDOWN_TIMEOUT_MS) the whole run ends within it: each step is told what is left and
   * is given up, logged, when it overruns it; the steps after it still run, with nothing left, so
   * each can say what it could not do.
   */
  shutdown(budgetMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.#closing ??= this.#runAll(Date.now() + budgetMs);
    return this.#closing;
  }

  async #runAll(deadline: number): Promise<void> {
    for (const phase of SHUTDOWN_PHASES) {
      for (const step of this.#steps.get(phase) ?? []) {
        const remainingMs = Math.max(0, deadline - Date.now());
        try {
          const run = step.run(remainingMs);
          await (Number.isFinite(remainingMs)
            ? withTimeout(run, remainingMs, `shutdown step ${step.name}`)
            : run);
        } catch (error) {
          this.#logger.error({ err: error, phase, step: step.name }, 'shutdown step failed');
        }
      }
    }
  }
}
