import type { z } from 'zod';
import { parseJson } from '../../formats/json.ts';
import {
  bytesAt,
  chunkedMembers,
  MemberKeys,
  type MemberRule,
  membersFollow,
} from '../../formats/json-members.ts';
import { upstreamJson } from '../../formats/request-text.ts';
import { malformedAnswerError } from '../shared/upstream-error.ts';
import type {
  DeploymentTarget,
  OperationAdapter,
  PassedOnAnswer,
  StreamDecoder,
  StreamDecoderCall,
  UpstreamRequest,
  Usage,
} from '../types.ts';
import type { OpenAIEndpoint } from './openai-endpoint.ts';

/** What distinguishes one JSON operation of the OpenAI family from another. */
export interface OpenAIJsonOperation<Body, Answer> {
  path: string;
  /** Validates a 2xx answer (loosely: unknown fields pass through). */
  answer: z.ZodType<Answer>;
  usageOf(answer: Answer): Usage | null;
  /**
   * Present for an operation whose native answers may be passed on unparsed
   * (OperationAdapter.readPassedOn): the top-level members its schema requires, and its usage read
   * from the `usage` member alone (null when that is not a usage the operation knows).
   */
  passedOn?: {
    members: Readonly<Record<string, MemberRule>>;
    usageOf(usage: unknown): Usage | null;
  };
  /** Present for an upstream whose answers name what its content filter withheld (Azure). */
  contentFilterOf?: OperationAdapter<Body, Answer>['contentFilterOf'];
  /** Upstream-only additions to the body, on a copy (e.g. chat's stream_options). */
  prepare?(body: Record<string, unknown>, stream: boolean, target: DeploymentTarget): Record<string, unknown>;
  createStreamDecoder?(target: DeploymentTarget, call: StreamDecoderCall<Body>): StreamDecoder;
}

/**
 * The generic adapter for JSON operations: the client's body with `model` set to the upstream
 * model, posted to the endpoint's URL for the operation's path.
 */
export function openAIJsonAdapter<Body extends object, Answer>(
  endpoint: OpenAIEndpoint,
  operation: OpenAIJsonOperation<Body, Answer>,
): OperationAdapter<Body, Answer> {
  const adapter: OperationAdapter<Body, Answer> = {
    buildRequest({ target, body, stream }): UpstreamRequest {
      let upstream: Record<string, unknown> = { ...body, model: target.upstreamModel };
      if (stream) upstream.stream = true;
      if (operation.prepare) upstream = operation.prepare(upstream, stream, target);
      return {
        url: endpoint.url(target, operation.path),
        method: 'POST',
        headers: {
          ...endpoint.headers(target),
          'content-type': 'application/json',
          accept: stream ? 'text/event-stream' : 'application/json',
        },
        body: upstreamJson(upstream, body),
      };
    },
    parseResponse(body, target) {
      const parsed = operation.answer.safeParse(body);
      if (!parsed.success) throw malformedAnswerError(target.provider, operation.path, parsed.error.issues);
      // The upstream's own object (validated), not zod's copy: field order and unknown fields are kept.
      return body as Answer;
    },
    usageOf: (answer) => operation.usageOf(answer),
  };
  const { passedOn } = operation;
  if (passedOn) {
    const keys = new MemberKeys([...new Set([...Object.keys(passedOn.members), 'model', 'usage'])]);
    adapter.readPassedOn = (chunks) => readPassedOn(chunks, passedOn, keys);
  }
  if (operation.createStreamDecoder) adapter.createStreamDecoder = operation.createStreamDecoder;
  if (operation.contentFilterOf) adapter.contentFilterOf = operation.contentFilterOf;
  return adapter;
}

/** The answer's usage and model span, read without parsing it (OperationAdapter.readPassedOn). */
function readPassedOn(
  chunks: readonly Buffer[],
  shape: NonNullable<OpenAIJsonOperation<unknown, unknown>['passedOn']>,
  keys: MemberKeys,
): PassedOnAnswer | null {
  const members = chunkedMembers(chunks, keys);
  if (members === null || !membersFollow(chunks, members, shape.members)) return null;
  const model = members.get('model');
  const usageAt = members.get('usage');
  if (model === undefined || usageAt === undefined) return null;
  const usage = shape.usageOf(parseJson(bytesAt(chunks, usageAt[0], usageAt[1]).toString('utf8')));
  return usage === null ? null : { usage, model };
}
