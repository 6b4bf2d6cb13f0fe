import { callSlot } from '../pipeline/call-slot.ts';

/** The two hooks an extension module may export (DESIGN.md section 5, Extensions). */
export type ExtensionHook = 'beforeUpstream' | 'afterUpstream';

/**
 * What one extension's hook did on a call, for the call's record and span; never the call's
 * content. `skipped`: a non-critical extension's breaker was open; `disabled`: a critical one's was.
 */
export type ExtensionRunOutcome =
  | 'continue'
  | 'replaced'
  | 'rejected'
  | 'observed'
  | 'failed'
  | 'skipped'
  | 'disabled';

export interface ExtensionRun {
  extensionId: string;
  hook: ExtensionHook;
  outcome: ExtensionRunOutcome;
  startedAtMs: number;
  durationMs: number;
  /** Why it failed (a throw, a timeout, the memory limit, a malformed result); null otherwise. */
  failure: string | null;
}

/** The hooks that ran on a call, in order; unset when none applied. Read by the records and spans. */
export const EXTENSION_RUNS = callSlot<ExtensionRun[]>('extensions.runs');
