import { calcPrice, type PriceCalculation } from '@pydantic/genai-prices';
import { convertLibraryPrice } from './convert-library-price.ts';
import type { ModelPricing } from './model-pricing.ts';
import { normalizeModelName } from './normalize-model-name.ts';
import { nextPriceChangeMs } from './price-schedule.ts';

/** What genai-prices knows of one model at one moment. */
export interface LibraryModel {
  pricing: ModelPricing | null;
  contextWindow: number | null;
  /** The price may change at this time (epoch ms); Infinity when fixed. */
  validUntilMs: number;
}

/** One lookup in the library: `providerId` absent lets the library infer the provider from the model name. */
interface LibraryQuery {
  providerId?: string;
  model: string;
}

const BEDROCK_VERSION_SUFFIX = /-v\d+(?::\d+)?$/;

/**
 * Our provider ids (DESIGN.md section 5) -> the library lookups to try, in order. The library's
 * `azure` provider falls back to OpenAI's (and others') models by itself. An OpenAI-compatible
 * upstream can be any host, so only the library's own model-name inference is used (`gpt-*` ->
 * OpenAI, `deepseek*` -> DeepSeek, ...); a self-hosted Llama gets no price rather than some
 * other host's.
 */
const QUERIES_BY_PROVIDER: ReadonlyMap<string, (model: string) => LibraryQuery[]> = new Map(
  Object.entries({
    openai: (model) => [{ providerId: 'openai', model }],
    azure: (model) => [{ providerId: 'azure', model }],
    anthropic: (model) => [{ providerId: 'anthropic', model }],
    gemini: (model) => [{ providerId: 'google', model: model.replace(/^models\//, '') }],
    bedrock: (model) => {
      const queries: LibraryQuery[] = [{ providerId: 'aws', model }];
      const name = normalizeModelName(model);
      if (name.startsWith('claude')) {
        queries.push({ providerId: 'anthropic', model: name.replace(BEDROCK_VERSION_SUFFIX, '') });
      }
      return queries;
    },
    // The library's `google` provider holds Vertex AI's own prices, Claude's `@version` ids included.
    vertex: (model) => {
      const queries: LibraryQuery[] = [{ providerId: 'google', model }];
      if (model.startsWith('claude-'))
        queries.push({ providerId: 'anthropic', model: normalizeModelName(model) });
      return queries;
    },
    'openai-compatible': (model) => {
      const queries: LibraryQuery[] = [{ model }];
      const lastSegment = model.slice(model.lastIndexOf('/') + 1);
      if (lastSegment !== model) queries.push({ model: lastSegment });
      return queries;
    },
  } satisfies Record<string, (model: string) => LibraryQuery[]>),
);

function calculate(query: LibraryQuery, timestamp: Date): PriceCalculation | null {
  try {
    return calcPrice({}, query.model, { providerId: query.providerId, timestamp });
  } catch {
    // Malformed library data for one model must not fail a request: treat it as unpriced.
    return null;
  }
}

/** Looks a deployment's model up in genai-prices; null when the library does not know it. */
export function findLibraryModel(
  provider: string,
  upstreamModel: string,
  nowMs: number,
): LibraryModel | null {
  const queriesFor = QUERIES_BY_PROVIDER.get(provider);
  if (queriesFor === undefined) return null;
  const timestamp = new Date(nowMs);
  for (const query of queriesFor(upstreamModel)) {
    const found = calculate(query, timestamp);
    if (found === null) continue;
    return {
      pricing: convertLibraryPrice(found.model_price),
      contextWindow: found.model.context_window ?? null,
      validUntilMs: nextPriceChangeMs(found.model, nowMs),
    };
  }
  return null;
}
