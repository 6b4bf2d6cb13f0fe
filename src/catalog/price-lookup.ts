/**
 * One lookup of a model in the price library (genai-prices): `providerId` is the library's
 * provider id; absent, the library infers the provider from the model name.
 */
export interface PriceLookup {
  providerId?: string;
  model: string;
}

/**
 * How a provider's upstream model ids are looked up in the price library, in order: each provider
 * adapter declares its own (ProviderAdapter.priceLookups), so the catalog holds no provider table.
 */
export type PriceLookups = (upstreamModel: string) => readonly PriceLookup[];
