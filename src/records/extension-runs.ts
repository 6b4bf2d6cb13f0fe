import type { ExtensionRun } from '../extensions/extension-run.ts';

/** One extension hook as a call's record keeps it (the `extensions` column, migration 0007). */
export interface StoredExtensionRun {
  extensionId: string;
  hook: string;
  outcome: string;
  /** Milliseconds, to the microsecond: a trivial hook takes a fraction of one. */
  durationMs: number;
  failure: string | null;
}

/** The column's value: null when no extension applied to the call. */
export function storedExtensionRuns(runs: readonly ExtensionRun[]): StoredExtensionRun[] | null {
  if (runs.length === 0) return null;
  return runs.map((run) => ({
    extensionId: run.extensionId,
    hook: run.hook,
    outcome: run.outcome,
    durationMs: Math.round(run.durationMs * 1000) / 1000,
    failure: run.failure,
  }));
}
