import type { CacheStore } from '../cache/cache-store.ts';
import { CHANNELS } from '../cache/channels.ts';
import { DIAGNOSTICS } from '../diagnostics/diagnostics-channels.ts';
import type { Logger } from '../diagnostics/logger.ts';
import { appliesTo, type ExtensionDefinition, type ExtensionState } from './extension.ts';
import { type BreakerView, ExtensionBreaker } from './extension-breaker.ts';
import { ExtensionSandbox, type Hook, isolatesTornDown, type SandboxFailure } from './extension-sandbox.ts';
import { type HookDecision, hookDecisionOf } from './hook-decision.ts';
import { ReadinessProbe } from './readiness-probe.ts';

/** Where definitions come from: the database (variant B) and EXTENSIONS_DIR. */
export interface ExtensionSource {
  readonly name: string;
  load(): Promise<ExtensionDefinition[]>;
}

/** An extension ready to run on this replica. */
export interface LoadedExtension {
  readonly definition: ExtensionDefinition;
  readonly hooks: ReadonlySet<Hook>;
  readonly sandbox: ExtensionSandbox;
  readonly breaker: ExtensionBreaker;
}

/** An extension as the admin API shows it: its definition, its hooks and its breaker on this replica. */
export interface ExtensionStatus extends Omit<BreakerView, 'state'> {
  id: string;
  state: ExtensionState;
  definition: ExtensionDefinition;
  hooks: readonly Hook[];
}

export interface ExtensionRuntimeOptions {
  sources: readonly ExtensionSource[];
  /** EXTENSION_BREAKER_THRESHOLD: consecutive failures that trip an extension. */
  breakerThreshold: number;
  /** Longest result (JSON characters) a hook may return. */
  maxResultChars: number;
  logger: Logger;
}

/** Periodic reload interval: a safety net for a missed pub/sub message, as for deployments. */
const REFRESH_INTERVAL_MS = 30_000;

const NONE: readonly LoadedExtension[] = Object.freeze([]);

/** The key of the lists `applying` builds without a hook. */
const ANY_HOOK = 'any';

/**
 * The extensions of this replica, compiled once per source version, with their breakers
 * (DESIGN.md section 5, Extensions). The list that applies to a public model is built once per
 * load, not per call. Reloaded when any replica announces a change; a reset announced by any
 * replica closes the breaker here too.
 */
export class ExtensionRuntime {
  readonly #options: ExtensionRuntimeOptions;
  readonly #probe = new ReadinessProbe();
  #byId = new Map<string, LoadedExtension>();
  /** Per hook (or ANY_HOOK), per public model: the lists `applying` built since the last load. */
  #applying = new Map<Hook | typeof ANY_HOOK, Map<string, readonly LoadedExtension[]>>();
  /** Loads run one after another: each must see the last one's isolates and breakers to carry them over. */
  #loads: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  /** The isolates of replaced extensions, being freed: `close` waits for them. */
  #retired: Promise<void> = Promise.resolve();
  /** Set by `close`: a load still queued builds nothing. */
  #closed = false;

  constructor(options: ExtensionRuntimeOptions) {
    this.#options = options;
  }

  /**
   * Reads every source and swaps in the new set. An extension whose source and limits did not
   * change keeps its isolate and its breaker; a new source gets a fresh isolate and an `active`
   * breaker (a PATCH of the source resets it). A source that no longer compiles is left out and logged.
   */
  load(): Promise<void> {
    const run = this.#loads.then(() => this.#loadNow());
    this.#loads = run.catch(() => {});
    return run;
  }

  async #loadNow(): Promise<void> {
    if (this.#closed) return;
    const definitions = await this.#definitions();
    const next = new Map<string, LoadedExtension>();
    for (const definition of definitions) {
      const loaded = await this.#loaded(definition);
      if (loaded !== null) next.set(definition.id, loaded);
    }
    const previous = this.#byId;
    this.#byId = next;
    this.#applying = new Map();
    for (const [id, loaded] of previous) {
      if (next.get(id)?.sandbox !== loaded.sandbox) {
        // Settled to nothing, so a long run of reloads holds no chain of results.
        this.#retired = Promise.all([this.#retired, loaded.sandbox.dispose()]).then(() => undefined);
      }
    }
  }

  /** Reloads on change announcements and every 30 s, and resets on reset announcements; returns a stop function. */
  async watch(cache: CacheStore): Promise<() => Promise<void>> {
    const stopChanges = await cache.subscribe(CHANNELS.extensionsChanged, () => void this.reload());
    const stopResets = await cache.subscribe(CHANNELS.extensionsReset, (id) => this.reset(id));
    this.#timer = setInterval(() => void this.reload(), REFRESH_INTERVAL_MS).unref();
    return async () => {
      clearInterval(this.#timer);
      await stopChanges();
      await stopResets();
    };
  }

  /**
   * The enabled extensions that apply to `publicModel` (and export `hook`, when given), in id
   * order (the documented run order); built once per model and load, not per call.
   */
  applying(publicModel: string, hook?: Hook): readonly LoadedExtension[] {
    // Nested maps rather than one keyed by a joined string: no string built and hashed per call.
    const listsKey = hook ?? ANY_HOOK;
    let byModel = this.#applying.get(listsKey);
    if (byModel === undefined) {
      byModel = new Map();
      this.#applying.set(listsKey, byModel);
    }
    let list = byModel.get(publicModel);
    if (list === undefined) {
      const found = [...this.#byId.values()].filter(
        (loaded) =>
          loaded.definition.enabled &&
          appliesTo(loaded.definition, publicModel) &&
          (hook === undefined || loaded.hooks.has(hook)),
      );
      list = found.length === 0 ? NONE : Object.freeze(found);
      byModel.set(publicModel, list);
    }
    return list;
  }

  stateOf(loaded: LoadedExtension): ExtensionState {
    if (loaded.breaker.state === 'active') return 'active';
    return loaded.definition.critical ? 'tripped' : 'skipped';
  }

  /** Runs one hook; the decision, or a SandboxFailure. The caller settles the breaker (`succeeded`, `failed`). */
  async invoke(loaded: LoadedExtension, hook: Hook, call: unknown): Promise<HookDecision> {
    return hookDecisionOf(hook, await loaded.sandbox.call(hook, call));
  }

  succeeded(loaded: LoadedExtension): void {
    loaded.breaker.succeeded();
  }

  /**
   * Counts a failure of the extension; publishes the trip (the reason, never the call's content),
   * which telemetry logs and alerts send on.
   */
  failed(loaded: LoadedExtension, failure: SandboxFailure): void {
    if (!loaded.breaker.failed(failure.message)) return;
    if (!DIAGNOSTICS.extensionTripped.hasSubscribers) return;
    const { id, critical } = loaded.definition;
    DIAGNOSTICS.extensionTripped.publish({
      extensionId: id,
      critical,
      reason: failure.message,
      kind: failure.kind,
    });
  }

  /** Closes the extension's breaker on this replica; false when there is no such extension. */
  reset(id: string): boolean {
    const loaded = this.#byId.get(id);
    loaded?.breaker.reset();
    return loaded !== undefined;
  }

  status(id: string): ExtensionStatus | undefined {
    const loaded = this.#byId.get(id);
    return loaded === undefined ? undefined : statusOf(this, loaded);
  }

  /** Every extension, in id order. */
  statuses(): ExtensionStatus[] {
    return [...this.#byId.values()]
      .sort((a, b) => (a.definition.id < b.definition.id ? -1 : 1))
      .map((loaded) => statusOf(this, loaded));
  }

  /** Readiness: a trivial hook runs in an isolate. */
  probe(): Promise<void> {
    return this.#probe.check();
  }

  /**
   * Frees every isolate, once the load under way has ended; resolves when all are freed and
   * isolated-vm has had time to tear them down, so the process may exit.
   */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#loads;
    const sandboxes = [...this.#byId.values()].map((loaded) => loaded.sandbox);
    this.#byId = new Map();
    this.#applying = new Map();
    const freed = sandboxes.map((sandbox) => sandbox.dispose());
    await Promise.all([...freed, this.#probe.dispose(), this.#retired]);
    // The process may exit next: isolated-vm must have torn the isolates down first.
    await isolatesTornDown();
  }

  async #definitions(): Promise<ExtensionDefinition[]> {
    const byId = new Map<string, ExtensionDefinition>();
    for (const source of this.#options.sources) {
      for (const definition of await source.load()) {
        if (byId.has(definition.id)) {
          this.#options.logger.warn(
            { extensionId: definition.id, source: source.name },
            'an extension with this id was already loaded from another source; this one is ignored',
          );
          continue;
        }
        byId.set(definition.id, definition);
      }
    }
    return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  async #loaded(definition: ExtensionDefinition): Promise<LoadedExtension | null> {
    const current = this.#byId.get(definition.id);
    if (current !== undefined && sameCode(current.definition, definition)) {
      return { ...current, definition };
    }
    try {
      const sandbox = await ExtensionSandbox.create(
        definition.source,
        definition.limits,
        this.#options.maxResultChars,
      );
      const breaker = new ExtensionBreaker(this.#options.breakerThreshold);
      return { definition, hooks: sandbox.hooks, sandbox, breaker };
    } catch (error) {
      this.#options.logger.error(
        { extensionId: definition.id, origin: definition.origin, err: (error as Error).message },
        'extension not loaded: its module cannot run',
      );
      return current ?? null;
    }
  }

  /** `load`, with a failure logged rather than thrown: the loaded extensions keep running. */
  async reload(): Promise<void> {
    try {
      await this.load();
    } catch (error) {
      this.#options.logger.warn(
        { err: error },
        'extension reload failed; the loaded extensions keep running',
      );
    }
  }
}

/** Same module and limits: the compiled isolate and the breaker carry over. */
function sameCode(a: ExtensionDefinition, b: ExtensionDefinition): boolean {
  return (
    a.source === b.source &&
    a.limits.timeoutMs === b.limits.timeoutMs &&
    a.limits.memoryMb === b.limits.memoryMb
  );
}

function statusOf(runtime: ExtensionRuntime, loaded: LoadedExtension): ExtensionStatus {
  return {
    ...loaded.breaker.view(),
    id: loaded.definition.id,
    state: runtime.stateOf(loaded),
    definition: loaded.definition,
    hooks: [...loaded.hooks],
  };
}
