import type { Bindings, ChildLoggerOptions, LogFn } from 'pino';
import type { Logger } from '../diagnostics/logger.ts';

/** pino's last `LogFn` overload; the logger called takes every overload at run time. */
type LogArgs = Parameters<LogFn>;

/**
 * fastify's per-request logger (`request.log`), made the first time something logs through it.
 * fastify makes one for every request, and a pino child runs the redaction paths over its
 * bindings when it is made, a measurable cost (docs/decisions/hot-path.md) for a logger most
 * requests never use (the access line is written by the app's own hook).
 */
export class DeferredRequestLogger {
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #made: Logger | null = null;

  constructor(parent: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get #logger(): Logger {
    this.#made ??= this.#parent.child(this.#bindings, this.#options);
    return this.#made;
  }

  get level(): string {
    return this.#made?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#logger.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return this.#logger.isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.#logger.child(bindings, options);
  }

  fatal(...args: LogArgs): void {
    this.#logger.fatal(...args);
  }

  error(...args: LogArgs): void {
    this.#logger.error(...args);
  }

  warn(...args: LogArgs): void {
    this.#logger.warn(...args);
  }

  info(...args: LogArgs): void {
    this.#logger.info(...args);
  }

  debug(...args: LogArgs): void {
    this.#logger.debug(...args);
  }

  trace(...args: LogArgs): void {
    this.#logger.trace(...args);
  }

  silent(...args: LogArgs): void {
    this.#logger.silent(...args);
  }
}

/**
 * Makes each request's logger (`request.log`) a DeferredRequestLogger through fastify's own child
 * factory, by replacing `child` on fastify's logger (`app.log`) alone. A `childLoggerFactory` of
 * our own made the same logger, but fastify then checks what a factory of ours returns on every
 * request (`validateLogger`: seven property reads through a megamorphic path, and two arrays;
 * docs/decisions/hot-path.md, Deferred per-request logger). The deferred logger makes its pino
 * child with pino's own `child`, so that child's children keep their bindings.
 */
export function deferRequestLoggers(fastifyLogger: Logger): void {
  const pinoParent = Object.create(fastifyLogger) as Logger;
  pinoParent.child = fastifyLogger.child;
  fastifyLogger.child = ((bindings: Bindings, options?: ChildLoggerOptions) =>
    new DeferredRequestLogger(pinoParent, bindings, options ?? {})) as unknown as Logger['child'];
}
