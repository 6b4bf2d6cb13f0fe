import type { Attributes } from '@opentelemetry/api';
import type { Operation } from '../formats/operation.ts';
import { OPERATION_SPECS } from '../formats/operation-spec.ts';
import type { CallSummary } from '../records/call-summary.ts';
import type { Labels } from './metric-family.ts';

/** `gen_ai.operation.name` of a gateway operation (formats/operation-spec.ts). */
export function genAiOperationName(operation: string): string {
  return Object.hasOwn(OPERATION_SPECS, operation)
    ? OPERATION_SPECS[operation as Operation].genAiName
    : operation;
}

/** Low-cardinality attributes shared by the call's metrics (no request id, no key id). */
export function metricAttributes(call: CallSummary): Labels {
  return {
    'gen_ai.operation.name': genAiOperationName(call.operation),
    'gen_ai.request.model': call.publicModel,
    'gen_ai.provider.name': call.provider ?? 'none',
    'switchyard.operation': call.operation,
    'switchyard.status': call.status,
    ...(call.error === null ? {} : { 'error.type': call.error.code }),
    ...(call.cache === null ? {} : { 'switchyard.cache': call.cache }),
  };
}

/** The call span's attributes (GenAI semantic conventions plus `switchyard.*`). */
export function spanAttributes(call: CallSummary): Attributes {
  return {
    'gen_ai.operation.name': genAiOperationName(call.operation),
    'gen_ai.request.model': call.publicModel,
    ...(call.upstreamModel === null ? {} : { 'gen_ai.response.model': call.upstreamModel }),
    ...(call.provider === null
      ? {}
      : { 'gen_ai.provider.name': call.provider, 'gen_ai.system': call.provider }),
    'gen_ai.usage.input_tokens': call.inputTokens,
    'gen_ai.usage.output_tokens': call.outputTokens,
    'http.response.status_code': call.httpStatus,
    ...(call.error === null ? {} : { 'error.type': call.error.code }),
    'switchyard.request_id': call.requestId,
    'switchyard.operation': call.operation,
    'switchyard.key_id': call.keyId ?? 'master',
    ...(call.deploymentId === null ? {} : { 'switchyard.deployment.id': call.deploymentId }),
    'switchyard.status': call.status,
    'switchyard.stream': call.stream,
    ...(call.cache === null ? {} : { 'switchyard.cache': call.cache }),
    'switchyard.cost_cents': call.costCents,
    'switchyard.attempts': call.attempts.length,
    ...(call.cachedInputTokens === null
      ? {}
      : { 'switchyard.usage.cached_input_tokens': call.cachedInputTokens }),
  };
}
