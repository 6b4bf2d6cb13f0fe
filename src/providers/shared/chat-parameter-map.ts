/**
 * The generic half of a provider's Chat Completions parameter map, kept as data so a provider's
 * rules can be read in one table: the rules a
 * table is written in, and the one engine that applies a table to a request. The tables themselves
 * stay with their providers, as data.
 *
 * `handled` fields are read by another part of the adapter (messages, tools); `set` fields become
 * part of the upstream's configuration object; `unsupported` fields are a 400
 * `unsupported_parameter` unless their value is a no-op; `ignored` fields have no upstream meaning
 * (attribution, OpenAI-side storage). A field not listed is refused rather than silently dropped.
 */
import type { GatewayError } from '../../errors/gateway-error.ts';
import { unsupportedParameter } from './unsupported-parameter.ts';

export type ParameterRule<Config> =
  | { readonly kind: 'handled' }
  | { readonly kind: 'ignored' }
  | { readonly kind: 'set'; readonly apply: (value: unknown, name: string) => Config }
  | { readonly kind: 'unsupported'; readonly noop?: (value: unknown) => boolean };

export const handled = Object.freeze({ kind: 'handled' } as const);
export const ignored = Object.freeze({ kind: 'ignored' } as const);
export const never = Object.freeze({ kind: 'unsupported' } as const);

/**
 * Chat Completions fields only OpenAI has: features no other upstream offers (refused) and
 * OpenAI-side attribution and storage (ignored). A provider's table spreads them at its end.
 */
export const OPENAI_ONLY_CHAT_PARAMETERS = Object.freeze({
  verbosity: never,
  audio: never,
  prediction: never,
  web_search_options: never,
  functions: never,
  function_call: never,
  user: ignored,
  metadata: ignored,
  store: ignored,
  service_tier: ignored,
  prompt_cache_key: ignored,
  safety_identifier: ignored,
});

/** Unsupported, except for the value that changes nothing (e.g. `n: 1`). */
export function unless(noop: (value: unknown) => boolean): {
  readonly kind: 'unsupported';
  readonly noop: typeof noop;
} {
  return { kind: 'unsupported', noop };
}

/** Copies the value, converted if need be, to one field of the upstream's configuration. */
export function setField<Config>(
  field: keyof Config & string,
  convert: (value: unknown) => unknown = (value) => value,
): ParameterRule<Config> {
  return { kind: 'set', apply: (value) => ({ [field]: convert(value) }) as Config };
}

/** No-op values: `logit_bias: {}`, `modalities: ["text"]`. */
export const isEmptyObject = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && Object.keys(value).length === 0;
export const isTextOnly = (value: unknown): boolean =>
  Array.isArray(value) && value.length === 1 && value[0] === 'text';

/** `stop` as the list every upstream takes: a lone string is a list of one. */
export const stopSequences = (value: unknown): unknown => (typeof value === 'string' ? [value] : value);

/** The refusal of a field the table says the upstream cannot take. */
export function unsupportedChatParameter(name: string): GatewayError {
  return unsupportedParameter(name, `The parameter ${name} is not supported by this model.`);
}

/**
 * Applies a table in its order (a later field wins over an earlier one for the same upstream
 * field): returns the upstream configuration, or throws on the first field the upstream cannot take.
 */
export function mapChatParameters<Config extends object>(
  body: Readonly<Record<string, unknown>>,
  rules: Readonly<Record<string, ParameterRule<Config>>>,
): Config {
  let config = {} as Config;
  for (const [name, rule] of Object.entries(rules)) {
    const value = body[name];
    if (value === undefined || value === null) continue;
    if (rule.kind === 'set') config = { ...config, ...rule.apply(value, name) };
    else if (rule.kind === 'unsupported' && !rule.noop?.(value)) throw unsupportedChatParameter(name);
  }
  for (const name of Object.keys(body)) {
    if (!Object.hasOwn(rules, name) && body[name] !== undefined && body[name] !== null) {
      throw unsupportedChatParameter(name);
    }
  }
  return config;
}
