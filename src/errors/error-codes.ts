import type { ErrorClass } from './error-classes.ts';

interface CodeEntry {
  readonly errorClass: ErrorClass;
  /** Overrides the class status where SPEC.md gives the code its own (e.g. extension_disabled: 503). */
  readonly status?: number;
  /** Overrides the class's OpenAI `type` (DESIGN.md section 5: budget exhaustion is insufficient_quota). */
  readonly openaiType?: string;
  /** Overrides the class's Anthropic `type` where Anthropic has its own (`overloaded_error`, `request_too_large`). */
  readonly anthropicType?: string;
  /** The status in the Anthropic shape, where Anthropic answers another one (529 for overloaded). */
  readonly anthropicStatus?: number;
  /** The generic public message. Never provider wording (SPEC.md, Errors). */
  readonly message: string;
  readonly description: string;
}

/**
 * Every code the gateway can answer with. docs/api.md (Errors) documents each one; a test checks that
 * codes are unique and documented.
 */
export const ERROR_CODES = {
  invalid_request: {
    errorClass: 'bad_request',
    message: 'The request is not valid.',
    description: 'The body or a parameter failed validation; `param` names the field.',
  },
  unsupported_parameter: {
    errorClass: 'bad_request',
    message: 'A parameter value is not supported by this model.',
    description: "A parameter lies outside the deployment's operation profile; `param` names it.",
  },
  unsupported_model_capability: {
    errorClass: 'bad_request',
    message: 'The model does not support a capability this request uses.',
    description:
      'The request uses tools, vision, reasoning or structured outputs the model does not declare.',
  },
  context_length_exceeded: {
    errorClass: 'context_window',
    message: "The input exceeds the model's context window.",
    description: "The input exceeds the model's context window; a context_window fallback can reroute it.",
  },
  content_policy_violation: {
    errorClass: 'content_policy',
    message: 'The request was blocked by the content policy.',
    description:
      'The provider blocked the request on content policy; a content_policy fallback can reroute it.',
  },
  invalid_api_key: {
    errorClass: 'auth',
    message: 'Missing or invalid API key.',
    description: 'No credential, an unknown one, or a disabled, deleted or expired virtual key.',
  },
  upstream_auth_failed: {
    errorClass: 'server',
    message: 'The upstream provider rejected the gateway credentials.',
    description:
      "The provider refused the deployment's API key, or the gateway could not obtain the deployment's cloud credentials (AWS chain or role, Google token); an operator must fix the deployment.",
  },
  model_not_allowed: {
    errorClass: 'permission',
    message: 'This key is not allowed to use the requested model.',
    description: "The virtual key's allowedModels lacks the model.",
  },
  model_not_found: {
    errorClass: 'not_found',
    message: 'The requested model does not exist or does not serve this operation.',
    description: 'The public model has no enabled deployment for the requested operation.',
  },
  not_found: {
    errorClass: 'not_found',
    message: 'The requested resource was not found.',
    description: 'No route or resource with that path or id.',
  },
  previous_response_not_found: {
    errorClass: 'not_found',
    message: 'The previous response was not found.',
    description:
      '`previous_response_id` names no stored response the key may read: unknown, expired, deleted, or another key\'s; `param: "previous_response_id"`.',
  },
  team_has_keys: {
    errorClass: 'bad_request',
    status: 409,
    message: 'The team still has keys.',
    description: 'A team with keys is deleted only with `?cascade=disable`, which disables its keys first.',
  },
  request_too_large: {
    errorClass: 'bad_request',
    status: 413,
    anthropicType: 'request_too_large',
    message: 'The request is too large.',
    description:
      "The body passed the gateway's BODY_LIMIT_BYTES, or the upstream refused its size (413); Anthropic type `request_too_large`.",
  },
  rate_limit_exceeded: {
    errorClass: 'rate_limit',
    message: 'Rate limit exceeded. Retry after the time given in Retry-After.',
    description: "The virtual key's RPM or TPM limit, or the upstream's, was exceeded.",
  },
  budget_exceeded: {
    errorClass: 'rate_limit',
    openaiType: 'insufficient_quota',
    message: "This key's budget is exhausted.",
    description:
      "The virtual key's settled spend reached its budget; `x-should-retry: false`, no Retry-After (no budget period resets it).",
  },
  budget_reserved: {
    errorClass: 'rate_limit',
    message: "This key's budget is held by its calls in flight. Retry after the time given in Retry-After.",
    description:
      'The virtual key has budget left, but its calls in flight reserve it (their worst case); `Retry-After: 1`, it clears as they settle.',
  },
  deployments_in_cooldown: {
    errorClass: 'rate_limit',
    message: 'Every deployment of this model is cooling down. Retry after the time given in Retry-After.',
    description: 'Every deployment in the pool is in cooldown; a general fallback can reroute it.',
  },
  no_deployments_available: {
    errorClass: 'server',
    message: 'No deployment could serve this request.',
    description:
      'The pool and any fallback chain were exhausted; the status is that of the last failure class.',
  },
  upstream_overloaded: {
    errorClass: 'server',
    status: 503,
    anthropicType: 'overloaded_error',
    anthropicStatus: 529,
    message: 'The upstream provider is overloaded. Retry later.',
    description:
      'The provider is temporarily overloaded (Anthropic 529 `overloaded_error`, any 503, Gemini `UNAVAILABLE`, Bedrock `ServiceUnavailableException`); 529 `overloaded_error` in the Anthropic shape. Retried and rerouted like upstream_error.',
  },
  upstream_error: {
    errorClass: 'server',
    message: 'The upstream provider returned an error.',
    description: 'The provider failed; the detail is in the request record, found by x-request-id.',
  },
  upstream_generation_failed: {
    errorClass: 'server',
    message: 'The upstream model stopped without a usable answer.',
    description:
      'The model ended its turn with a failure, not an answer (Gemini: a malformed or unexpected tool call, `OTHER`; Bedrock: `malformed_tool_use`, `malformed_model_output`, a tool call the request forbade); a retry may succeed.',
  },
  timeout: {
    errorClass: 'timeout',
    message: 'The upstream provider did not answer in time.',
    description: 'A connect, first-byte or total timeout expired.',
  },
  extension_disabled: {
    errorClass: 'unavailable',
    status: 503,
    message: 'A required extension is disabled.',
    description:
      'A critical extension tripped its failure breaker (or failed on this very call); the response carries Retry-After.',
  },
  extension_rejected: {
    errorClass: 'bad_request',
    message: 'The request was rejected by an extension.',
    description:
      "An extension rejected the call; the status is the one the extension chose (4xx), the type follows it (403: the Anthropic shape's `permission_error`, 404 `not_found_error`, 429 `rate_limit_error`).",
  },
  service_unavailable: {
    errorClass: 'unavailable',
    message: 'The service is temporarily unavailable. Retry after the time given in Retry-After.',
    description: 'The database or cache store is unreachable; the response carries Retry-After.',
  },
  server_busy: {
    errorClass: 'unavailable',
    message: 'The gateway is busy with other large requests. Retry after the time given in Retry-After.',
    description:
      'A request body over 1 MiB would take the large bodies in flight past MAX_BODY_BYTES_IN_FLIGHT; the response carries Retry-After.',
  },
  internal_error: {
    errorClass: 'server',
    status: 500,
    message: 'An internal error occurred.',
    description: 'A defect in the gateway; the detail is logged with the request id.',
  },
} as const satisfies Record<string, CodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;
