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
 * A slot holding its values in a WeakMap keyed by the call's context: typed without a cast, no
 * per-call allocation for the calls that never use it, and a value goes with its context.
 */
export function callSlot<T>(name: string): CallSlot<T> {
  const values = new WeakMap<CallContext, T>();
  return {
    name,
    get: (ctx) => values.get(ctx),
    set: (ctx, value) => {
      values.set(ctx, value);
    },
    delete: (ctx) => {
      values.delete(ctx);
    },
  };
}
