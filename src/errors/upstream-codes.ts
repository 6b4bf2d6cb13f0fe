/**
 * Upstream error codes a client acts on, kept as the OpenAI shape's `code` of a bad_request
 * answer in place of the gateway's `invalid_request` (docs/api.md, Errors: upstream codes). They
 * are OpenAI's documented validation codes, which Azure and most compatible servers share; each
 * says what is wrong with the request, never anything about the provider. Any other upstream code
 * stays in the request record only.
 */
export const UPSTREAM_PUBLIC_CODES: ReadonlySet<string> = new Set([
  'invalid_value',
  'invalid_type',
  'unsupported_value',
  'unsupported_parameter',
  'missing_required_parameter',
  'unknown_parameter',
  'array_above_max_length',
  'array_below_min_length',
  'empty_array',
  'integer_above_max_value',
  'integer_below_min_value',
  'decimal_above_max_value',
  'decimal_below_min_value',
  'invalid_image_url',
  'invalid_image_format',
  'image_parse_error',
  'invalid_base64',
  'invalid_function_parameters',
  'invalid_prompt',
]);

/** The upstream code when the client may see it (a documented one), else undefined. */
export function publicUpstreamCode(code: string | undefined): string | undefined {
  return code !== undefined && UPSTREAM_PUBLIC_CODES.has(code) ? code : undefined;
}
