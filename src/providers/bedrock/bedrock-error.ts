/**
 * Classifies Bedrock Runtime failures (Amazon Bedrock API Reference, Converse "Errors" and "Common
 * Errors"): by the exception name first (`x-amzn-errortype`, a body `__type`, or a stream's
 * `:exception-type`), then by HTTP status. Provider wording is kept as `providerMessage` only.
 */
import { headerValue, retryAfterSeconds } from '../shared/retry-after.ts';
import {
  BAD_REQUEST,
  CONTENT_POLICY,
  CONTEXT_WINDOW,
  classifyUpstreamStatus,
  messageHasMarker,
  OVERLOADED,
  RATE_LIMIT,
  type StatusClassification,
  TIMEOUT,
  UPSTREAM,
  UPSTREAM_AUTH,
  upstreamErrorInfo,
} from '../shared/upstream-status.ts';
import type { UpstreamErrorInfo } from '../types.ts';
import { bedrockErrorBodySchema } from './bedrock-wire-types.ts';

export const BEDROCK_EXCEPTIONS: Readonly<Record<string, StatusClassification>> = Object.freeze({
  ValidationException: BAD_REQUEST,
  ThrottlingException: RATE_LIMIT,
  ServiceQuotaExceededException: RATE_LIMIT,
  AccessDeniedException: UPSTREAM_AUTH,
  UnrecognizedClientException: UPSTREAM_AUTH,
  InvalidSignatureException: UPSTREAM_AUTH,
  IncompleteSignatureException: UPSTREAM_AUTH,
  MissingAuthenticationTokenException: UPSTREAM_AUTH,
  ExpiredTokenException: UPSTREAM_AUTH,
  InvalidClientTokenId: UPSTREAM_AUTH,
  ResourceNotFoundException: UPSTREAM,
  ModelNotReadyException: UPSTREAM,
  ModelErrorException: UPSTREAM,
  // "Bedrock is unable to process your request": the overload class, as Anthropic's 529.
  ServiceUnavailableException: OVERLOADED,
  InternalServerException: UPSTREAM,
  ModelStreamErrorException: UPSTREAM,
  ModelTimeoutException: TIMEOUT,
});

/** Wording by which a bad request tells a too-long input ("Input is too long for requested model"). */
const CONTEXT_MARKERS = [
  'too long',
  'too many input tokens',
  'context window',
  'context length',
  'maximum context',
];
/** ... and a refusal on content policy ("blocked by content filters"). */
const CONTENT_POLICY_MARKERS = ['content filter', 'content policy'];

export interface BedrockFailure {
  /** HTTP status; 0 for an exception inside a stream. */
  status: number;
  /** `ThrottlingException`, `throttlingException` or a qualified name; undefined when unknown. */
  errorType: string | undefined;
  message: string | undefined;
  retryAfterSeconds?: number;
}

/** `ValidationException:http://internal.amazon.com/...`, `com.amazon.coral#ValidationException`, `validationException` -> `ValidationException`. */
export function bedrockExceptionName(errorType: string | undefined): string | undefined {
  if (!errorType) return undefined;
  let name = errorType.slice(errorType.lastIndexOf('#') + 1);
  const colon = name.indexOf(':');
  if (colon !== -1) name = name.slice(0, colon);
  name = name.trim();
  return name === '' ? undefined : name.charAt(0).toUpperCase() + name.slice(1);
}

/** One pure function over the tables above. */
export function classifyBedrockFailure(failure: BedrockFailure): UpstreamErrorInfo {
  const name = bedrockExceptionName(failure.errorType);
  let outcome: StatusClassification =
    name !== undefined && Object.hasOwn(BEDROCK_EXCEPTIONS, name)
      ? BEDROCK_EXCEPTIONS[name]
      : failure.status === 0
        ? UPSTREAM
        : classifyUpstreamStatus(failure.status);
  if (outcome.code === 'invalid_request') {
    if (messageHasMarker(failure.message, CONTEXT_MARKERS)) outcome = CONTEXT_WINDOW;
    else if (messageHasMarker(failure.message, CONTENT_POLICY_MARKERS)) outcome = CONTENT_POLICY;
  }
  return upstreamErrorInfo(outcome, failure.retryAfterSeconds, failure.message);
}

/** The adapter's `classifyError`: a non-2xx Bedrock answer (JSON or text body, headers). */
export function classifyBedrockError(
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>>,
): UpstreamErrorInfo {
  const parsed = bedrockErrorBodySchema.safeParse(body);
  const fields = parsed.success ? parsed.data : {};
  const retryAfter = retryAfterSeconds(headers);
  return classifyBedrockFailure({
    status,
    errorType: headerValue(headers, 'x-amzn-errortype') ?? fields.__type,
    message: fields.message ?? fields.Message ?? (typeof body === 'string' && body !== '' ? body : undefined),
    ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
  });
}
