import { catalogEntryOf } from '../../deployments/deployment-catalog.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import {
  estimateEachEmbeddingInput,
  estimateInputTokens,
  estimateInputTokensPaced,
  inputTokensUpperBound,
} from '../../formats/estimate-tokens.ts';
import { OPERATION_SPECS } from '../../formats/operation-spec.ts';
import { type CallContext, estimatedInputTokensOf, pacedInputTokensOf } from '../call-context.ts';
import { CONTINUE, type Stage, type StageOutcome } from '../stage.ts';
import { eligibleFacts, narrowEligible, type PoolSource } from './eligible-deployments.ts';
import { contextWindowWithBetas } from './long-context-beta.ts';

/**
 * The tokens measured against the window. Embeddings: the largest single input, since each
 * input of a batch is embedded on its own (OpenAI API reference: an input "must not exceed the
 * max input tokens for the model").
 */
function measuredTokens(ctx: CallContext): number {
  const input = ctx.body.input;
  if (ctx.endpoint.operation !== 'embeddings' || !Array.isArray(input))
    return estimatedInputTokensOf(ctx, estimateInputTokens);
  if (input.every((item) => typeof item === 'number')) {
    ctx.estimatedInputTokens ??= input.length;
    return input.length;
  }
  let largest = 0;
  let total = 0;
  for (const tokens of estimateEachEmbeddingInput(input)) {
    largest = Math.max(largest, tokens);
    total += tokens;
  }
  ctx.estimatedInputTokens ??= total;
  return largest;
}

/**
 * SPEC.md (Errors) `context_length_exceeded`: the estimated input (formats/estimate-tokens.ts,
 * which leans high) exceeds the model's catalog context window. A deployment whose window is
 * unknown accepts the call; the upstream then judges. A Claude deployment sent the `context-1m-*`
 * beta is held to Claude's 1M window (long-context-beta.ts). Class context_window, so a
 * context_window fallback can reroute it.
 */
export function checkContextWindow(pool: PoolSource): Stage {
  return {
    name: 'check-context-window',
    run(ctx) {
      // Image and audio operations are not checked: their catalog context window is not about the prompt.
      const param = OPERATION_SPECS[ctx.endpoint.operation].contextParam;
      if (param === null) return CONTINUE;
      let bound: number | undefined;
      const facts = eligibleFacts(ctx, pool);
      if (facts !== null) {
        // A beta only widens a window, so an input within the smallest catalog window fits them all.
        const smallest = facts.smallestContextWindow;
        if (smallest === null) return CONTINUE;
        bound = inputTokensUpperBound(ctx.endpoint.operation, ctx.body);
        if (bound <= smallest) return CONTINUE;
        // The estimate is needed: a large body's is counted between turns of the event loop.
        if (ctx.endpoint.operation !== 'embeddings') {
          const tokens = pacedInputTokensOf(ctx, estimateInputTokensPaced);
          if (tokens instanceof Promise) return tokens.then(() => keepFitting(ctx, pool, param, bound));
        }
      }
      return keepFitting(ctx, pool, param, bound);
    },
  };
}

/** Keeps the eligible deployments whose window holds the input; `bound`: the byte bound, if made. */
function keepFitting(
  ctx: CallContext,
  pool: PoolSource,
  param: string,
  bound: number | undefined,
): StageOutcome {
  let tokens: number | undefined;
  narrowEligible(ctx, pool, (deployment) => {
    const catalogWindow = catalogEntryOf(deployment).contextWindow;
    if (catalogWindow === null) return null;
    const window = contextWindowWithBetas(deployment, catalogWindow, ctx.clientHeaders);
    // Most calls fit by a wide margin: the byte bound proves it without the tokenizer.
    bound ??= inputTokensUpperBound(ctx.endpoint.operation, ctx.body);
    if (bound <= window) return null;
    tokens ??= measuredTokens(ctx);
    if (tokens <= window) return null;
    return new GatewayError('context_length_exceeded', {
      param,
      tokenCounts: { inputTokens: tokens, limitTokens: window },
      message: `The input is about ${tokens} tokens, more than the model's context window of ${window} tokens.`,
    });
  });
  return CONTINUE;
}
