/**
 * Which stop sequence ended a Converse answer. Converse says only `stopReason: "stop_sequence"`;
 * the string is the model's own answer field, which Converse returns in
 * `additionalModelResponseFields` when the request names it in `additionalModelResponseFieldPaths`
 * (Bedrock API Reference, Converse; Claude's is `stop_sequence`, and a path a model's answer lacks
 * is ignored). Without it, a request of one stop sequence can only have matched that one.
 */
import type { BedrockConverseRequest } from './bedrock-wire-types.ts';

const STOP_SEQUENCE_FIELD = 'stop_sequence';

/** The request, asking for the matched stop sequence when it sets any. */
export function withStopSequenceField(request: BedrockConverseRequest): BedrockConverseRequest {
  if (!request.inferenceConfig?.stopSequences?.length) return request;
  return { ...request, additionalModelResponseFieldPaths: [`/${STOP_SEQUENCE_FIELD}`] };
}

/** The stop sequence an answer that stopped for `stopReason` matched, when it is known. */
export function matchedStopSequence(
  stopReason: string,
  fields: Readonly<Record<string, unknown>> | null | undefined,
  requested: readonly string[],
): string | undefined {
  if (stopReason !== 'stop_sequence') return undefined;
  const named = fields?.[STOP_SEQUENCE_FIELD];
  if (typeof named === 'string') return named;
  return requested.length === 1 ? requested[0] : undefined;
}
