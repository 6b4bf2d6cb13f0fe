import { setTimeout as delay } from 'node:timers/promises';
import ivm from 'isolated-vm';
import { WallBound } from './wall-bound.ts';

/** The two hooks an extension module may export (DESIGN.md section 5, Extensions). */
export const HOOKS = ['beforeUpstream', 'afterUpstream'] as const;
export type Hook = (typeof HOOKS)[number];

export interface SandboxLimits {
  /** CPU time one hook call may take inside the isolate; also bounds its wall time (see `#call`). */
  timeoutMs: number;
  /** The isolate's heap limit (isolated-vm takes 8 MB at least). */
  memoryMb: number;
}

/** Why a hook call failed: what the breaker counts, what the admin API shows (never call content). */
export type SandboxFailureKind = 'throw' | 'timeout' | 'memory' | 'malformed';

export class SandboxFailure extends Error {
  readonly kind: SandboxFailureKind;

  constructor(kind: SandboxFailureKind, message: string) {
    super(message);
    this.name = 'SandboxFailure';
    this.kind = kind;
  }
}

/** A module that cannot become an extension: the 400 of `POST /admin/extensions` names `message`. */
export class ExtensionCompileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExtensionCompileError';
  }
}

/**
 * Runs inside the isolate before the module is compiled, so it holds the language's own
 * `JSON.parse`, `JSON.stringify` and `Reflect.apply`, not what the module may put in their place
 * (a module that replaced `JSON.stringify` with a loop held `POST /admin/extensions` for 60 s:
 * issue 30 finding 9); every use below goes through them, with no array method or iterator the
 * module could replace. It removes `WebAssembly`, whose memory lives outside the V8 heap and so
 * outside `memoryMb` (a 64 MB hook took its worker from 187 MB to 4.2 GB). `bind` takes the
 * module's exports and names the hooks found; `run` crosses a call in as JSON text and its result
 * out as JSON text, so nothing but copied strings passes the boundary (no reference into the
 * gateway's heap). A hook may be async; `undefined` (continue) leaves as the empty string.
 */
const BOOT = `(() => {
  delete globalThis.WebAssembly;
  const { parse, stringify } = JSON;
  const { apply } = Reflect;
  const NativePromise = Promise;
  const then = Promise.prototype.then;
  const names = ${JSON.stringify(HOOKS)};
  let hooks = null;
  const encode = (value) => (value === undefined ? '' : apply(stringify, undefined, [value]));
  return {
    bind(exports) {
      hooks = exports;
      const found = [];
      for (let i = 0; i < names.length; i++) {
        if (typeof exports[names[i]] === 'function') found[found.length] = names[i];
      }
      return apply(stringify, undefined, [found]);
    },
    run(hook, json) {
      const out = hooks[hook](apply(parse, undefined, [json]));
      return out instanceof NativePromise ? apply(then, out, [encode]) : encode(out);
    },
  };
})()`;

/** Where a call into the isolate starts: a promise job, with no caller's frames on the stack. */
const SETTLED = Promise.resolve();

/** The heap isolated-vm refuses to go under. */
const MIN_MEMORY_MB = 8;

/**
 * The time past `timeoutMs` a call may take before it is abandoned: isolated-vm's timeout counts
 * the script's own running time, and a hook awaiting a promise that never settles runs no script.
 */
const WALL_GRACE_MS = 50;

/** Every isolate built and not known to be freed: what `liveIsolates` counts. */
const BUILT = new Set<ivm.Isolate>();

/**
 * The isolates of this process not yet freed. Closing the extensions brings it to zero, so none is
 * left to isolated-vm's own teardown at exit, where a test process once aborted in CI.
 */
export function liveIsolates(): number {
  forgetFreed();
  return BUILT.size;
}

/**
 * How long isolated-vm is given to tear a disposed isolate down. It does that on a thread of its
 * own, and a `process.exit` meanwhile crashes the process (docs/operations.md, Shutdown, has the
 * measurement).
 */
const TEARDOWN_MS = 100;

/** When `disposeQuietly` last freed an isolate (performance.now()). */
let lastFreedAt = Number.NEGATIVE_INFINITY;

/**
 * Resolves once every isolate freed so far has had `TEARDOWN_MS` to be torn down: what a process
 * about to exit waits for. At once when none was freed lately.
 */
export async function isolatesTornDown(): Promise<void> {
  const wait = lastFreedAt + TEARDOWN_MS - performance.now();
  if (wait > 0) await delay(wait);
}

/** Drops the isolates freed since (by `dispose`, or by isolated-vm after the memory limit). */
function forgetFreed(): void {
  for (const isolate of BUILT) if (isolate.isDisposed) BUILT.delete(isolate);
}

/** One compiled isolate and the runner bound to the module's hooks. */
interface Loaded {
  isolate: ivm.Isolate;
  run: ivm.Reference<(hook: string, json: string) => string | Promise<string>>;
}

/**
 * One extension's isolate (DESIGN.md section 1: isolated-vm, a real isolation boundary): its own
 * V8 heap bounded by `memoryMb`, each call cut at `timeoutMs`, no Node.js API, no network, no file
 * system, no WebAssembly (the context holds only the language's built-ins, less that one). Compiled once per source version; an
 * isolate the memory limit killed is rebuilt for the next call.
 */
export class ExtensionSandbox {
  readonly #source: string;
  readonly #limits: SandboxLimits;
  readonly #maxResultChars: number;
  readonly hooks: ReadonlySet<Hook>;
  #loaded: Promise<Loaded> | null = null;
  /** `#loaded` once it resolved: a call on a live isolate takes it without an await. */
  #ready: Loaded | null = null;
  /** isolated-vm reads the options of every call; they are the same for all of them. */
  readonly #applyOptions: ivm.ReferenceApplyOptions;
  /** Abandons a call still unfinished `WALL_GRACE_MS` after `timeoutMs` (see `#call`). */
  readonly #wall: WallBound;
  /** Set by `dispose`: a call that still arrives runs on an isolate of its own, freed when it ends. */
  #disposed = false;

  private constructor(
    source: string,
    limits: SandboxLimits,
    maxResultChars: number,
    hooks: ReadonlySet<Hook>,
  ) {
    this.#source = source;
    this.#limits = limits;
    this.#maxResultChars = maxResultChars;
    this.hooks = hooks;
    this.#applyOptions = { timeout: limits.timeoutMs, result: { promise: true } };
    this.#wall = new WallBound(limits.timeoutMs + WALL_GRACE_MS);
  }

  /**
   * Compiles and evaluates `source` as an ES module; throws ExtensionCompileError naming the
   * problem when it does not compile, imports anything, throws while evaluated, or exports
   * neither hook as a function.
   */
  static async create(
    source: string,
    limits: SandboxLimits,
    maxResultChars: number,
  ): Promise<ExtensionSandbox> {
    const loaded = await load(source, limits);
    const sandbox = new ExtensionSandbox(source, limits, maxResultChars, loaded.hooks);
    sandbox.#loaded = Promise.resolve(loaded);
    sandbox.#ready = loaded;
    return sandbox;
  }

  /** Runs `hook` with `call`; resolves with the hook's result (undefined: continue) or throws a SandboxFailure. */
  async call(hook: Hook, call: unknown): Promise<unknown> {
    const ready = this.#ready;
    const loaded = ready !== null && !ready.isolate.isDisposed ? ready : await this.#rebuilt();
    let text: unknown;
    try {
      text = await this.#call(loaded, hook, JSON.stringify(call));
    } finally {
      if (this.#disposed) disposeQuietly(loaded.isolate);
    }
    if (typeof text !== 'string')
      throw new SandboxFailure('malformed', 'the hook returned something JSON cannot carry');
    if (text.length > this.#maxResultChars) {
      throw new SandboxFailure('malformed', `the hook's result is over ${this.#maxResultChars} characters`);
    }
    return text === '' ? undefined : JSON.parse(text);
  }

  /**
   * Frees the isolate; resolves once it is freed, a build still running included, so a process
   * that closes the gateway and exits leaves no isolate for isolated-vm to tear down at exit.
   */
  async dispose(): Promise<void> {
    this.#disposed = true;
    const loaded = this.#loaded;
    this.#loaded = null;
    this.#ready = null;
    const built = await loaded?.catch(() => null);
    if (built) disposeQuietly(built.isolate);
  }

  /**
   * The isolate, built again when a timeout or the memory limit dropped it. A module that no
   * longer loads (its top level past `timeoutMs` on a busy machine, say) fails this call as the
   * hook would, counted by the breaker, instead of escaping as an error of the gateway; the next
   * call tries the build again.
   */
  async #rebuilt(): Promise<Loaded> {
    try {
      return await this.#isolate();
    } catch (error) {
      if (!(error instanceof ExtensionCompileError)) throw error;
      const { kind } = failureOf(error, this.#limits.timeoutMs);
      throw new SandboxFailure(kind, `the isolate could not be built again: ${error.message}`);
    }
  }

  async #isolate(): Promise<Loaded> {
    if (this.#disposed) return load(this.#source, this.#limits);
    const current = this.#loaded;
    if (current !== null) {
      const loaded = await current;
      if (!loaded.isolate.isDisposed) return loaded;
    }
    const next = load(this.#source, this.#limits);
    this.#loaded = next;
    this.#ready = null;
    try {
      const loaded = await next;
      if (this.#loaded === next) this.#ready = loaded;
      return loaded;
    } catch (error) {
      // The calls waiting on this build share its failure; the next one builds again.
      if (this.#loaded === next) this.#loaded = null;
      throw error;
    }
  }

  async #call(loaded: Loaded, hook: Hook, json: string): Promise<unknown> {
    const { timeoutMs } = this.#limits;
    // isolated-vm captures the caller's stack (10 frames) for every async call; a bound `apply`
    // run as a promise reaction has no JavaScript frame under it to walk (docs/decisions/hot-path.md).
    const applied = SETTLED.then(
      loaded.run.apply.bind(loaded.run, undefined, [hook, json], this.#applyOptions),
    );
    try {
      return await this.#wall.watch(applied, () => {
        // A promise that never settles would hold the isolate's queue: drop the isolate.
        disposeQuietly(loaded.isolate);
        return new SandboxFailure('timeout', `the hook did not finish within ${timeoutMs} ms`);
      });
    } catch (error) {
      throw failureOf(error, timeoutMs);
    }
  }
}

async function load(source: string, limits: SandboxLimits): Promise<Loaded & { hooks: ReadonlySet<Hook> }> {
  const isolate = new ivm.Isolate({ memoryLimit: Math.max(MIN_MEMORY_MB, limits.memoryMb) });
  forgetFreed();
  BUILT.add(isolate);
  const timeout = limits.timeoutMs;
  try {
    const context = await isolate.createContext();
    const boot = await context.eval(BOOT, { reference: true, timeout });
    const bind = await boot.get('bind', { reference: true });
    const run = await boot.get('run', { reference: true });
    const module = await compile(isolate, source);
    await module.instantiate(context, (specifier) => {
      throw new Error(`imports are not available to extensions (tried '${specifier}')`);
    });
    await evaluate(module, timeout);
    const found = await bind.apply(undefined, [module.namespace.derefInto()], { timeout });
    return { isolate, run, hooks: exportedHooks(found) };
  } catch (error) {
    disposeQuietly(isolate);
    throw error instanceof ExtensionCompileError ? error : new ExtensionCompileError(messageOf(error));
  }
}

async function compile(isolate: ivm.Isolate, source: string): Promise<ivm.Module> {
  try {
    return await isolate.compileModule(source, { filename: 'extension.js' });
  } catch (error) {
    throw new ExtensionCompileError(`the source does not compile: ${messageOf(error)}`);
  }
}

async function evaluate(module: ivm.Module, timeoutMs: number): Promise<void> {
  try {
    await module.evaluate({ timeout: timeoutMs });
  } catch (error) {
    throw new ExtensionCompileError(`the module failed while it was evaluated: ${messageOf(error)}`);
  }
}

/** The hooks `bind` found (JSON text of their names). */
function exportedHooks(found: unknown): ReadonlySet<Hook> {
  const hooks = new Set(typeof found === 'string' ? (JSON.parse(found) as Hook[]) : []);
  if (hooks.size === 0) {
    throw new ExtensionCompileError(
      'the module exports neither beforeUpstream nor afterUpstream as a function',
    );
  }
  return hooks;
}

/** The breaker's reason for a failed call: a timeout, the memory limit, or the hook's own throw. */
function failureOf(error: unknown, timeoutMs: number): SandboxFailure {
  if (error instanceof SandboxFailure) return error;
  const message = messageOf(error);
  // isolated-vm: "Isolate was disposed during execution due to memory limit".
  if (/memory limit/i.test(message)) {
    return new SandboxFailure('memory', 'the hook went over its memory limit');
  }
  if (/timed out/i.test(message)) return new SandboxFailure('timeout', `the hook ran past ${timeoutMs} ms`);
  return new SandboxFailure('throw', `the hook threw ${thrownAt(error)}`);
}

/**
 * What was thrown and where (`a TypeError at extension.js:3:9`), never its message: an extension
 * may put the call's content in it, and the reason is shown by the admin API and kept on records.
 */
function thrownAt(error: unknown): string {
  const name = error instanceof Error && /^[A-Za-z]{1,40}$/.test(error.name) ? error.name : 'Error';
  const at = error instanceof Error ? /extension\.js:\d+:\d+/.exec(error.stack ?? '')?.[0] : undefined;
  return `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}${at === undefined ? '' : ` at ${at}`}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function disposeQuietly(isolate: ivm.Isolate): void {
  try {
    if (isolate.isDisposed) return;
    isolate.dispose();
    lastFreedAt = performance.now();
  } catch {
    // Already disposed by the memory limit between the check and the call.
  }
}
