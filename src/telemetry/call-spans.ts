import { ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { ExtensionRun } from '../extensions/extension-run.ts';
import type { AttemptRecord } from '../pipeline/call-context.ts';
import type { CallSummary } from '../records/call-summary.ts';
import { storedError } from '../records/error-detail.ts';
import type { CapturedResponse } from '../records/response-capture.ts';
import { genAiOperationName, spanAttributes } from './gen-ai-attributes.ts';

/** The full payloads of a call, attached as span events only with OTEL_LOG_PAYLOADS=true. */
export interface CallPayloads {
  request: unknown;
  response: CapturedResponse | null;
}

/**
 * One span per call and a child span per upstream attempt, made when the call is over from the
 * times the context kept (so nothing is held open per call). Names follow the GenAI semantic
 * conventions: `{gen_ai.operation.name} {gen_ai.request.model}`.
 */
export function emitCallSpans(tracer: Tracer, call: CallSummary, payloads: CallPayloads | null): void {
  const operationName = genAiOperationName(call.operation);
  const root = tracer.startSpan(`${operationName} ${call.publicModel}`, {
    kind: SpanKind.SERVER,
    startTime: call.startedAtMs,
    attributes: spanAttributes(call),
  });
  if (call.status === 'failure') {
    root.setStatus({ code: SpanStatusCode.ERROR, message: call.error?.code ?? `status ${call.httpStatus}` });
  }
  if (payloads !== null) addPayloadEvents(root, call, payloads);
  const parent = trace.setSpan(ROOT_CONTEXT, root);
  call.attempts.forEach((attempt, index) => {
    emitAttemptSpan(tracer, parent, operationName, attempt, index, payloads !== null);
  });
  for (const run of call.extensions) emitExtensionSpan(tracer, parent, run);
  root.end(call.finishedAtMs);
}

function emitAttemptSpan(
  tracer: Tracer,
  parent: ReturnType<typeof trace.setSpan>,
  operationName: string,
  attempt: AttemptRecord,
  index: number,
  logPayloads: boolean,
): void {
  const span = tracer.startSpan(
    `${operationName} ${attempt.upstreamModel}`,
    {
      kind: SpanKind.CLIENT,
      startTime: attempt.startedAtMs,
      attributes: {
        'gen_ai.operation.name': operationName,
        'gen_ai.request.model': attempt.upstreamModel,
        'gen_ai.provider.name': attempt.provider,
        'gen_ai.system': attempt.provider,
        'switchyard.deployment.id': attempt.deploymentId,
        'switchyard.public_model': attempt.publicModel,
        'switchyard.attempt.index': index,
        'switchyard.attempt.outcome': attempt.outcome,
        ...(attempt.status === null ? {} : { 'http.response.status_code': attempt.status }),
        ...(attempt.firstByteMs === null ? {} : { 'switchyard.first_byte_ms': attempt.firstByteMs }),
        ...(attempt.error === null ? {} : { 'error.type': attempt.error.code }),
      },
    },
    parent,
  );
  if (attempt.error !== null) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: attempt.error.code });
    if (logPayloads) span.addEvent('switchyard.error', { payload: json(storedError(attempt.error)) });
  }
  span.end(attempt.startedAtMs + attempt.latencyMs);
}

/** One internal span per extension hook that ran: which, its outcome and its duration; never the call's content. */
function emitExtensionSpan(
  tracer: Tracer,
  parent: ReturnType<typeof trace.setSpan>,
  run: ExtensionRun,
): void {
  const span = tracer.startSpan(
    `extension ${run.hook} ${run.extensionId}`,
    {
      kind: SpanKind.INTERNAL,
      startTime: run.startedAtMs,
      attributes: {
        'switchyard.extension.id': run.extensionId,
        'switchyard.extension.hook': run.hook,
        'switchyard.extension.outcome': run.outcome,
      },
    },
    parent,
  );
  if (run.outcome === 'failed')
    span.setStatus({ code: SpanStatusCode.ERROR, message: run.failure ?? 'failed' });
  span.end(run.startedAtMs + run.durationMs);
}

function addPayloadEvents(span: Span, call: CallSummary, payloads: CallPayloads): void {
  span.addEvent('switchyard.request', { payload: json(payloads.request) }, call.startedAtMs);
  if (payloads.response !== null) span.addEvent('switchyard.response', { payload: json(payloads.response) });
  if (call.error !== null) span.addEvent('switchyard.error', { payload: json(storedError(call.error)) });
}

function json(value: unknown): string {
  try {
    return (
      JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? String(item) : item)) ??
      'null'
    );
  } catch {
    return '"[unserializable]"';
  }
}
