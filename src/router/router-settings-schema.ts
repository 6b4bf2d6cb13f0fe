/**
 * Router settings (DESIGN.md section 5), with their defaults. docs/configuration.md ("Router
 * settings") documents each default and why; keep the two in step.
 */
import { z } from 'zod';

export const ROUTING_STRATEGIES = ['weighted', 'least-busy', 'lowest-latency'] as const;
export type RoutingStrategy = (typeof ROUTING_STRATEGIES)[number];

/** The failure classes a fallback chain can be declared for (SPEC.md, Errors: classes). */
export const FALLBACK_KINDS = ['general', 'context_window', 'content_policy'] as const;
export type FallbackKind = (typeof FALLBACK_KINDS)[number];

const HOUR_MS = 3_600_000;

export const DEFAULT_ROUTER_SETTINGS = Object.freeze({
  strategy: 'weighted',
  cooldown: Object.freeze({
    // Three failures in a minute is a pattern rather than a blip; thirty seconds of rest is long
    // enough for a provider's brief overload to clear and short enough not to strand capacity.
    failureThreshold: 3,
    windowMs: 60_000,
    durationMs: 30_000,
  }),
  retries: Object.freeze({
    // Two attempts in the pool: one retry on another deployment absorbs a single bad upstream
    // without doubling the latency of a call that is going to fail anyway.
    maxAttempts: 2,
    backoffMs: 250,
  }),
  timeouts: Object.freeze({
    connectMs: 5_000,
    // Non-streamed answers only send headers once generated: long completions need minutes.
    firstByteMs: 120_000,
    totalMs: 600_000,
    // A client that leaves a stream after its content has had the answer: the upstream is read on
    // for this long so that its usage, which comes last, is billed (issue 19). Ten seconds covers
    // the usage of an answer already generated; past it the streamed text is counted instead.
    drainAfterClientLeftMs: 10_000,
  }),
  fallbacks: Object.freeze({ general: {}, context_window: {}, content_policy: {} }),
}) satisfies RouterSettings;

const millis = (min: number, max: number) =>
  z.number().int('expected an integer number of milliseconds').min(min).max(max);

const modelName = z.string().trim().min(1, 'model names must not be empty').max(256);

/** Public model -> ordered list of the public models to try next; a model may not fall back to itself. */
const fallbackMap = z
  .record(
    modelName,
    z
      .array(modelName)
      .max(32)
      .refine((list) => new Set(list).size === list.length, 'a model must not repeat in a fallback list'),
  )
  .superRefine((map, ctx) => {
    for (const [model, chain] of Object.entries(map)) {
      const index = chain.indexOf(model);
      if (index !== -1) {
        ctx.addIssue({
          code: 'custom',
          path: [model, index],
          message: 'a model must not fall back to itself',
        });
      }
    }
  })
  .default({});

const defaults = DEFAULT_ROUTER_SETTINGS;

/** The body of `PUT /admin/router-settings`: the whole settings; an absent field takes its default. */
export const routerSettingsSchema = z
  .strictObject({
    strategy: z.enum(ROUTING_STRATEGIES).default(defaults.strategy),
    cooldown: z
      .strictObject({
        failureThreshold: z.number().int().min(1).max(1000).default(defaults.cooldown.failureThreshold),
        windowMs: millis(1_000, 24 * HOUR_MS).default(defaults.cooldown.windowMs),
        durationMs: millis(0, 24 * HOUR_MS).default(defaults.cooldown.durationMs),
      })
      .default(defaults.cooldown),
    retries: z
      .strictObject({
        maxAttempts: z.number().int().min(1).max(10).default(defaults.retries.maxAttempts),
        backoffMs: millis(0, 60_000).default(defaults.retries.backoffMs),
      })
      .default(defaults.retries),
    timeouts: z
      .strictObject({
        connectMs: millis(100, 120_000).default(defaults.timeouts.connectMs),
        firstByteMs: millis(100, 24 * HOUR_MS).default(defaults.timeouts.firstByteMs),
        totalMs: millis(100, 24 * HOUR_MS).default(defaults.timeouts.totalMs),
        drainAfterClientLeftMs: millis(0, HOUR_MS).default(defaults.timeouts.drainAfterClientLeftMs),
      })
      .refine((t) => t.firstByteMs <= t.totalMs, {
        message: 'firstByteMs must not exceed totalMs',
        path: ['firstByteMs'],
      })
      .default(defaults.timeouts),
    fallbacks: z
      .strictObject({
        general: fallbackMap,
        context_window: fallbackMap,
        content_policy: fallbackMap,
      })
      .default(defaults.fallbacks),
  })
  .meta({ id: 'RouterSettings' });

/** What the router reads on the hot path through RouterSettingsStore.current(). */
export interface RouterSettings {
  readonly strategy: RoutingStrategy;
  readonly cooldown: {
    /** Failures within `windowMs` that put a deployment in cooldown. */
    readonly failureThreshold: number;
    readonly windowMs: number;
    /** How long a deployment stays out of the pool once cooled down. */
    readonly durationMs: number;
  };
  readonly retries: {
    /** Upstream attempts on the model's pool, the first included (1 = no retry), before fallbacks. */
    readonly maxAttempts: number;
    /** Pause before each retry. */
    readonly backoffMs: number;
  };
  readonly timeouts: {
    readonly connectMs: number;
    /** Until the upstream's response headers (streams: the first event). */
    readonly firstByteMs: number;
    /** The whole attempt, body or stream included. */
    readonly totalMs: number;
    /** How long a stream is still read from the upstream after its client left (within totalMs). */
    readonly drainAfterClientLeftMs: number;
  };
  /** Per failure class: public model -> ordered public models to try when its pool fails so. */
  readonly fallbacks: Readonly<Record<FallbackKind, Readonly<Record<string, readonly string[]>>>>;
}
