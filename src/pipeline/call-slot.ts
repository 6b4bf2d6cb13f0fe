import type { CallContext } from './call-context.ts';

/**
 * One typed piece of per-call state that a stage, answer stage or observer keeps between its
 * steps (a limit reservation, a pending cache write, a record's start). The slot object is the
 * key: a module declares its slot once (`const ADMISSION = callSlot<Admission>('admission')`) and
 * nothing else can read or write it by name. `name` is for debugging only.
 */
export interface CallSlot<T> {
  readonly name: string;
  get(ctx: CallContext): T | undefined;
  set(ctx: CallContext, value: T): void;
  delete(ctx: CallContext): void;
}

/**
 * A call's slot values, one entry per declared slot at the slot's index, read and written only by
 * the slots. A plain array on the context rather than a WeakMap per slot: a WeakMap entry keyed by
 * a fresh object per call costs an identity hash and ephemeron work in every GC
 * (docs/decisions/hot-path.md, "Call slots").
 */
export type CallSlots = unknown[];

/** The empty slots of a new call context. */
export function newCallSlots(): CallSlots {
  return [];
}

let declaredSlots = 0;

/** Declares a slot; modules declare theirs once, when they load. */
export function callSlot<T>(name: string): CallSlot<T> {
  const index = declaredSlots++;
  return {
    name,
    // Only this slot's `set` writes at `index`, so what is there is a T (or nothing yet).
    get: (ctx) => ctx.slots[index] as T | undefined,
    set: (ctx, value) => {
      ctx.slots[index] = value;
    },
    delete: (ctx) => {
      ctx.slots[index] = undefined;
    },
  };
}
