import { unsupportedParameter } from '../shared/unsupported-parameter.ts';
import type { OperationAdapter } from '../types.ts';
import { AZURE_DEFAULT_API_VERSION, azureOptionsOf } from './azure-config.ts';

/**
 * Chat fields the gateway sends (a client's own, or a translator's: Messages `thinking` becomes
 * `reasoning_effort`) with the first dated data-plane version that takes them (Azure OpenAI,
 * "Reasoning models": `reasoning_effort` from `2024-12-01-preview`; `verbosity`, a GPT-5 field,
 * from `2025-04-01-preview`). The v1 API takes them all.
 */
const CHAT_FIELDS_SINCE = Object.freeze({
  reasoning_effort: '2024-12-01-preview',
  verbosity: '2025-04-01-preview',
} satisfies Record<string, string>);

/** The dated versions compare by their date: `2024-12-01-preview` is older than `2025-01-01`. */
function predates(version: string, since: string): boolean {
  return version.slice(0, 10) < since.slice(0, 10);
}

/**
 * The chat adapter of a deployment that may pin an older version: a field that version predates
 * is a 400 `unsupported_parameter` naming it and the version, before Azure is called, rather than
 * Azure's own refusal of an unknown argument (or a field silently dropped).
 */
export function withApiVersionCheck<Body extends object, Answer>(
  adapter: OperationAdapter<Body, Answer>,
): OperationAdapter<Body, Answer> {
  return {
    ...adapter,
    buildRequest(input) {
      const version = azureOptionsOf(input.target.providerOptions).apiVersion ?? AZURE_DEFAULT_API_VERSION;
      if (version !== 'v1') {
        const body = input.body as Record<string, unknown>;
        for (const [field, since] of Object.entries(CHAT_FIELDS_SINCE)) {
          if (body[field] != null && predates(version, since)) {
            throw unsupportedParameter(
              field,
              `The parameter '${field}' needs Azure OpenAI api-version ${since} or later; this deployment pins ${version}.`,
            );
          }
        }
      }
      return adapter.buildRequest(input);
    },
  };
}
