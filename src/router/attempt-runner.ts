import type { Candidate } from '../deployments/candidate-pools.ts';
import type { DeploymentDirectory } from '../deployments/deployment-directory.ts';
import { credentialSecrets } from '../diagnostics/scrub-secrets.ts';
import type { AttemptResult } from '../pipeline/attempt-result.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import type { DeploymentTarget, StreamEvent } from '../providers/types.ts';
import { attemptUpstream } from '../upstream/attempt.ts';
import type { UpstreamClient, UpstreamTimeouts } from '../upstream/upstream-client.ts';
import { ClientAbortedError, scrubbedFailure } from '../upstream/upstream-failure.ts';
import type { RouterSettings } from './router-settings-schema.ts';
import { type BookkeepingDeps, TrackedAttempt } from './tracked-attempt.ts';

type StreamResult = Extract<AttemptResult, { kind: 'stream' }>;

export interface AttemptDeps extends BookkeepingDeps {
  client: UpstreamClient;
  directory: Pick<DeploymentDirectory, 'targetOf'>;
  /** Secrets of this process scrubbed from every upstream failure (the master key). */
  secrets: readonly string[];
}

/**
 * The router settings' timeouts as the upstream client takes them. The gap allowed between body
 * chunks is the first-byte timeout: an upstream silent that long mid-stream is as dead as one
 * that never started.
 */
export function upstreamTimeouts(settings: RouterSettings): UpstreamTimeouts {
  const { connectMs, firstByteMs } = settings.timeouts;
  return { connectMs, firstByteMs, bodyMs: firstByteMs };
}

/**
 * One upstream attempt with its bookkeeping (TrackedAttempt). A stream is handed over only once
 * its first event arrived: a stream that fails before that is an attempt failure like any other,
 * which the router may retry, since no byte reached the client yet (DESIGN.md section 4). After
 * the handover nothing is retried: a later failure ends the stream with the HTTP layer's error
 * event, and ends the attempt as failed.
 *
 * Throws the attempt's GatewayError, or ClientAbortedError when the client went away.
 */
export async function runAttempt(
  ctx: CallContext,
  candidate: Candidate,
  attemptId: string,
  settings: RouterSettings,
  deps: AttemptDeps,
): Promise<AttemptResult> {
  const attempt = new TrackedAttempt(ctx, candidate, attemptId, settings, deps);
  const target = deps.directory.targetOf(candidate.deployment);
  const explain = (error: unknown) =>
    scrubbedFailure(attempt.deadline.explain(error), secretsOf(target, deps));
  try {
    const result = await attemptUpstream(deps.client, {
      deployment: candidate.deployment,
      target,
      provider: candidate.provider,
      plan: candidate.plan,
      body: ctx.body,
      stream: ctx.stream,
      signal: attempt.deadline.signal,
      timeouts: upstreamTimeouts(settings),
      clientHeaders: ctx.clientHeaders,
      inputTokens: ctx.estimatedInputTokens,
    });
    if (result.kind === 'json') {
      attempt.handOver(null);
      attempt.filtered(result.contentFilter);
      await attempt.succeed(result.usage);
      return result;
    }
    const iterator = result.events[Symbol.asyncIterator]();
    const first = await iterator.next();
    attempt.handOver(result.firstByteAtMs() ?? Date.now());
    // From here the client may get the answer, so it is billed even if the client leaves: the
    // upstream is read on for `drainAfterClientLeftMs` (docs/configuration.md, Budgets).
    attempt.deadline.outliveClient(settings.timeouts.drainAfterClientLeftMs);
    return { ...result, events: continued(first, iterator, attempt, result, explain) };
  } catch (error) {
    const failure = explain(error);
    await attempt.fail(failure);
    throw failure;
  }
}

/** The stream from its first event on; ends the attempt when it ends, fails or is abandoned. */
async function* continued(
  first: IteratorResult<readonly StreamEvent[]>,
  iterator: AsyncIterator<readonly StreamEvent[]>,
  attempt: TrackedAttempt,
  stream: StreamResult,
  explain: (error: unknown) => unknown,
): AsyncGenerator<readonly StreamEvent[]> {
  let failure: unknown = null;
  let finished = false;
  try {
    let next = first;
    while (!next.done) {
      yield next.value;
      next = await iterator.next();
    }
    finished = true;
  } catch (error) {
    failure = explain(error);
    throw failure;
  } finally {
    // Whatever the end: a verdict the client already saw, or that broke the stream, is recorded.
    attempt.filtered(stream.contentFilter?.());
    if (finished) await attempt.succeed(stream.usage());
    else {
      // The consumer stopped early (the client went away): let the upstream go too.
      if (failure === null) await iterator.return?.();
      await attempt.fail(failure ?? new ClientAbortedError(), stream.usage());
    }
  }
}

/** What an upstream failure of `target` is scrubbed of: its own credential and the process's secrets. */
function secretsOf(target: DeploymentTarget, deps: AttemptDeps): string[] {
  return [...credentialSecrets(target.apiKey), ...deps.secrets];
}
