import { GatewayError } from '../errors/gateway-error.ts';
import type { Operation } from '../formats/operation.ts';
import type { AttemptResult } from './attempt-result.ts';
import type { CallContext, CallOutcome } from './call-context.ts';
import { multipartUploadOf } from './endpoint.ts';
import {
  type AnswerSource,
  type AnswerStage,
  runAnswerStages,
  runStages,
  type Stage,
  type StageLists,
  stageListsByOperation,
} from './stage.ts';

/**
 * Routes a call on the pool of `ctx.publicModel` once it passed the pre-flight stages: picks
 * deployments, attempts, retries. Throws a GatewayError when the pool cannot serve it.
 */
export type CallRouter = (ctx: CallContext) => Promise<AttemptResult>;

/**
 * Runs once a call is over (answer complete, failed, or client gone), in list order: cost and
 * limit settlement first, then the record, then telemetry. Must not throw and must not wait on I/O
 * the caller would feel: records and spend go through in-process queues (DESIGN.md section 4).
 */
export interface CallObserver {
  readonly name: string;
  /** Once the call is authenticated and its body valid, before any stage runs. */
  onCallStarted?(ctx: CallContext): void;
  onCallFinished(ctx: CallContext, outcome: CallOutcome): void;
}

/** Fallback chains by error class (SPEC.md, Runtime behaviours), as the pipeline follows them. */
export interface FallbackPolicy {
  /** The chain a failure may be rerouted by; null when it is answered as it is. */
  kindOf(error: GatewayError): string | null;
  /** The next public model of the chain of `kind` for the requested model, skipping those tried. */
  next(kind: string, requested: string, tried: readonly string[]): string | null;
  /** The answer once a chain was followed to its end: `last` is the last failure. */
  exhausted(last: GatewayError, tried: readonly string[]): GatewayError;
}

/** Headers that say how the call was routed (docs/api.md, Headers). */
export const ROUTING_HEADERS = Object.freeze({
  /** The deployment that served the call (set by the router). */
  deployment: 'x-switchyard-deployment',
  /** Upstream attempts the call took, every model of a fallback chain included; errors too. */
  attempts: 'x-switchyard-attempts',
  /** The public model that served the call when it is not the one requested. */
  fallbackModel: 'x-switchyard-fallback-model',
});

export interface PipelineOptions {
  /**
   * Per model: run for the requested model and again for each fallback model (key scope, model
   * resolution, profile, capabilities, context window), so a fallback is held to the same checks.
   */
  preflight: readonly Stage[];
  /**
   * Per call: run once, after the first model that passes pre-flight and before its routing
   * (limits admission, response cache). What they refuse is answered as it is, never rerouted.
   */
  call: readonly Stage[];
  route: CallRouter;
  /**
   * Per answer: run once on the answer the call gets, from the router or from a stage (response
   * cache write, response capture for the records), in order; each may wrap the one before.
   */
  answer: readonly AnswerStage[];
  observers?: readonly CallObserver[];
  /** Without one, failures are answered as they are. */
  fallbacks?: FallbackPolicy;
}

type ModelStep =
  | { kind: 'served'; result: AttemptResult; source: AnswerSource }
  | { kind: 'failed'; error: GatewayError; preflight: boolean };

const NO_FALLBACKS: FallbackPolicy = {
  kindOf: () => null,
  next: () => null,
  exhausted: (last) => last,
};

/**
 * The request pipeline of DESIGN.md section 4, minus the HTTP ends: for the requested model and
 * then each model of a fallback chain, the pre-flight stages and the router; the call-level
 * stages once; the answer stages on the answer. Stage lists are built once when configuration loads, not per request.
 */
export class InferencePipeline {
  readonly #stages: ReadonlyMap<Operation, StageLists>;
  readonly #route: CallRouter;
  readonly #observers: readonly CallObserver[];
  readonly #fallbacks: FallbackPolicy;

  constructor(options: PipelineOptions) {
    this.#stages = stageListsByOperation(options);
    this.#route = options.route;
    this.#observers = Object.freeze([...(options.observers ?? [])]);
    this.#fallbacks = options.fallbacks ?? NO_FALLBACKS;
  }

  /**
   * Serves the call from the requested model, else from its fallback chain: a failure of a
   * rerouted class moves on to the next model of that class's chain; a fallback model that its
   * pre-flight refuses (outside the key's scope, unable to take the request) is passed over. Once
   * a followed chain is exhausted, the policy's `exhausted` error answers.
   */
  async run(ctx: CallContext): Promise<AttemptResult> {
    for (const observer of this.#observers) observer.onCallStarted?.(ctx);
    const stages = this.#stagesOf(ctx.endpoint.operation);
    const requested = ctx.publicModel;
    const tried: string[] = [];
    const state = { callStagesRun: false };
    let failure: GatewayError | null = null;
    let chain: string | null = null;
    let model: string | null = requested;
    try {
      while (model !== null) {
        tried.push(model);
        ctx.publicModel = model;
        const step = await this.#serveModel(ctx, stages, state);
        if (step.kind === 'served') {
          if (model !== requested) ctx.responseHeaders[ROUTING_HEADERS.fallbackModel] = model;
          return stages.answer.length === 0
            ? step.result
            : await runAnswerStages(stages.answer, ctx, step.result, step.source);
        }
        // A multipart upload is a stream the failed attempt consumed: no other model can be sent it.
        if (multipartUploadOf(ctx.body)?.opened === true) throw step.error;
        const kind = this.#fallbacks.kindOf(step.error);
        if (kind !== null) {
          failure = step.error;
          chain = kind;
        } else if (model === requested || !step.preflight) {
          throw step.error;
        }
        model = chain === null ? null : this.#fallbacks.next(chain, requested, tried);
      }
      if (failure === null) throw new Error('fallback loop ended without a failure');
      throw tried.length === 1 ? failure : this.#fallbacks.exhausted(failure, tried);
    } catch (error) {
      ctx.publicModel = requested;
      throw error;
    } finally {
      ctx.responseHeaders[ROUTING_HEADERS.attempts] = String(ctx.attempts.length);
    }
  }

  /** One model: its pre-flight, the call-level stages the first time, then its routing. */
  async #serveModel(
    ctx: CallContext,
    stages: StageLists,
    state: { callStagesRun: boolean },
  ): Promise<ModelStep> {
    try {
      const outcome = await runStages(stages.preflight, ctx);
      if (outcome.kind === 'respond') return { kind: 'served', result: outcome.result, source: 'stage' };
    } catch (error) {
      if (error instanceof GatewayError) return { kind: 'failed', error, preflight: true };
      throw error;
    }
    if (!state.callStagesRun) {
      state.callStagesRun = true;
      const outcome = await runStages(stages.call, ctx);
      if (outcome.kind === 'respond') return { kind: 'served', result: outcome.result, source: 'stage' };
    }
    try {
      return { kind: 'served', result: await this.#route(ctx), source: 'route' };
    } catch (error) {
      if (error instanceof GatewayError) return { kind: 'failed', error, preflight: false };
      throw error;
    }
  }

  #stagesOf(operation: Operation): StageLists {
    const stages = this.#stages.get(operation);
    if (stages === undefined) throw new Error(`no stage lists for operation ${operation}`);
    return stages;
  }

  /** Called exactly once per call by the HTTP layer, after the last byte or the failure. */
  finish(ctx: CallContext, outcome: CallOutcome): void {
    for (const observer of this.#observers) observer.onCallFinished(ctx, outcome);
  }
}
