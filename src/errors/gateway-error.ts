import { ERROR_CLASSES, type ErrorClass } from './error-classes.ts';
import { ERROR_CODES, type ErrorCode } from './error-codes.ts';

export interface GatewayErrorOptions {
  /** The request field at fault, reported as OpenAI's `param`. */
  param?: string | null;
  /** A public message of our own words; never provider wording. Defaults to the code's message. */
  message?: string;
  /** Private detail (provider status and body, cause): goes to the request record, never the client. */
  detail?: unknown;
  /** Seconds for the `Retry-After` header (429 and 503); null: none, waiting would not help. */
  retryAfterSeconds?: number | null;
  /** Sent as `x-should-retry` (which the official SDKs honour) when set. */
  shouldRetry?: boolean;
  /** Overrides the status (no_deployments_available carries the last failure's status). */
  status?: number;
  /** Overrides the class (an upstream error is classified by the provider adapter). */
  errorClass?: ErrorClass;
  /**
   * The upstream's own error code, when it is one of UPSTREAM_PUBLIC_CODES (upstream-codes.ts):
   * shown as the OpenAI shape's `code` in place of the gateway's.
   */
  upstreamCode?: string;
  /** The input's tokens and the window it passed, when known (context_window errors). */
  tokenCounts?: TokenCounts;
  /**
   * Overrides the Anthropic shape's type and status: an exhausted fallback chain answers as its
   * last failure did (529 `overloaded_error`), so that Anthropic clients back off as they should.
   */
  anthropicAnswer?: AnthropicAnswer;
  /**
   * The upstream's own wording: private (goes to the record) unless the operator chose
   * UPSTREAM_ERROR_MESSAGES=passthrough; scrubbed of credentials before it can be shown.
   */
  upstreamMessage?: string;
  cause?: unknown;
}

export interface AnthropicAnswer {
  type: string;
  status: number;
}

export interface TokenCounts {
  inputTokens: number;
  limitTokens: number;
  /** The `max_tokens` asked for, when the refusal counted it with the input (Anthropic's "X + Y > Z"). */
  outputTokens?: number;
}

/** The one error type of the gateway: class, code, status, public message, param, private detail. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly errorClass: ErrorClass;
  readonly status: number;
  readonly param: string | null;
  readonly publicMessage: string;
  readonly detail: unknown;
  /** Undefined: the default wait; null: no Retry-After. */
  readonly retryAfterSeconds: number | null | undefined;
  readonly shouldRetry: boolean | undefined;
  readonly upstreamCode: string | undefined;
  readonly tokenCounts: TokenCounts | undefined;
  /** Set where the Anthropic shape answers other than the code says (an exhausted chain). */
  readonly anthropicAnswer: AnthropicAnswer | undefined;
  /** Not readonly: the attempt scrubs it of the deployment's key (attempt.ts). */
  upstreamMessage: string | undefined;

  constructor(code: ErrorCode, options: GatewayErrorOptions = {}) {
    const entry = ERROR_CODES[code];
    super(`${code}: ${options.message ?? entry.message}`, { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.errorClass = options.errorClass ?? entry.errorClass;
    this.status =
      options.status ?? ('status' in entry ? entry.status : ERROR_CLASSES[this.errorClass].status);
    this.param = options.param ?? null;
    this.publicMessage = options.message ?? entry.message;
    this.detail = options.detail;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.shouldRetry = options.shouldRetry;
    this.upstreamCode = options.upstreamCode;
    this.tokenCounts = options.tokenCounts;
    this.anthropicAnswer = options.anthropicAnswer;
    this.upstreamMessage = options.upstreamMessage;
  }

  get retryable(): boolean {
    return ERROR_CLASSES[this.errorClass].retryable;
  }

  get openaiType(): string {
    const entry = ERROR_CODES[this.code];
    return 'openaiType' in entry ? entry.openaiType : ERROR_CLASSES[this.errorClass].openaiType;
  }

  get anthropicType(): string {
    if (this.anthropicAnswer) return this.anthropicAnswer.type;
    const entry = ERROR_CODES[this.code];
    return 'anthropicType' in entry ? entry.anthropicType : ERROR_CLASSES[this.errorClass].anthropicType;
  }

  /** The status in the Anthropic shape: Anthropic's own where it has one (529 overloaded). */
  get anthropicStatus(): number {
    if (this.anthropicAnswer) return this.anthropicAnswer.status;
    const entry = ERROR_CODES[this.code];
    return 'anthropicStatus' in entry ? entry.anthropicStatus : this.status;
  }
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}
