/**
 * The error classes of SPEC.md (Errors: Classes). `service_unavailable` is not a class of the
 * table but a code; it gets its own class here because its status (503) differs from every row.
 */
export const ERROR_CLASSES = {
  bad_request: {
    status: 400,
    openaiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
    retryable: false,
  },
  context_window: {
    status: 400,
    openaiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
    retryable: false,
  },
  content_policy: {
    status: 400,
    openaiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
    retryable: false,
  },
  auth: {
    status: 401,
    openaiType: 'authentication_error',
    anthropicType: 'authentication_error',
    retryable: false,
  },
  permission: {
    status: 403,
    openaiType: 'invalid_request_error',
    anthropicType: 'permission_error',
    retryable: false,
  },
  not_found: {
    status: 404,
    openaiType: 'invalid_request_error',
    anthropicType: 'not_found_error',
    retryable: false,
  },
  rate_limit: {
    status: 429,
    openaiType: 'rate_limit_error',
    anthropicType: 'rate_limit_error',
    retryable: true,
  },
  server: { status: 502, openaiType: 'server_error', anthropicType: 'api_error', retryable: true },
  timeout: { status: 504, openaiType: 'server_error', anthropicType: 'api_error', retryable: true },
  unavailable: {
    status: 503,
    openaiType: 'server_error',
    anthropicType: 'overloaded_error',
    retryable: true,
  },
} as const satisfies Record<
  string,
  { status: number; openaiType: string; anthropicType: string; retryable: boolean }
>;

export type ErrorClass = keyof typeof ERROR_CLASSES;
