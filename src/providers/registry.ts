/**
 * The one place provider ids meet the code: the list of provider adapters and of cross-format
 * translators, and the plan for serving an operation on a provider (DESIGN.md section 4).
 * Adding a provider is one line in PROVIDERS.
 */
import { anthropicProvider } from './anthropic/anthropic-provider.ts';
import { azureProvider } from './azure/azure-provider.ts';
import { bedrockProvider } from './bedrock/bedrock-provider.ts';
import { geminiProvider } from './gemini/gemini-provider.ts';
import { openAIProvider } from './openai/openai-provider.ts';
import { openAICompatibleProvider } from './openai-compatible/openai-compatible-provider.ts';
import { chatViaMessages } from './translate/chat-via-messages/translator.ts';
import { composeTranslators } from './translate/compose-translators.ts';
import { messagesViaChat } from './translate/messages-via-chat/translator.ts';
import { responsesViaChat } from './translate/responses-via-chat/translator.ts';
import type {
  DeployedModel,
  Operation,
  OperationAdapter,
  OperationTranslator,
  ProviderAdapter,
} from './types.ts';
import { vertexProvider } from './vertex/vertex-provider.ts';

const PROVIDERS: readonly ProviderAdapter[] = [
  openAIProvider,
  azureProvider,
  openAICompatibleProvider,
  anthropicProvider,
  geminiProvider,
  bedrockProvider,
  vertexProvider,
];

/** Tried in order when a provider lacks an operation natively: one hop, then two. */
const TRANSLATORS: readonly OperationTranslator[] = [messagesViaChat, chatViaMessages, responsesViaChat];

/**
 * Two-hop bridges, built once: each translator followed by one that continues from its target
 * to a third operation (responses -> chat.completions -> messages for Anthropic).
 */
const TWO_HOP_TRANSLATORS: readonly OperationTranslator[] = TRANSLATORS.flatMap((outer) =>
  TRANSLATORS.filter((inner) => inner.from === outer.to && inner.to !== outer.from).map((inner) =>
    composeTranslators(outer, inner),
  ),
);

const BY_ID: ReadonlyMap<string, ProviderAdapter> = new Map(
  PROVIDERS.map((provider) => [provider.id, provider]),
);

/** How an operation is served on a provider: natively, or through a translator to one it serves. */
export type OperationPlan =
  | { kind: 'native'; adapter: OperationAdapter }
  | { kind: 'translated'; translator: OperationTranslator; adapter: OperationAdapter };

export function getProviderAdapter(id: string): ProviderAdapter | null {
  return BY_ID.get(id) ?? null;
}

export function providerIds(): string[] {
  return [...BY_ID.keys()];
}

/** Every header some provider takes from the client (ProviderAdapter.forwardedClientHeaders). */
export const FORWARDED_CLIENT_HEADERS: readonly string[] = Object.freeze([
  ...new Set(PROVIDERS.flatMap((provider) => provider.forwardedClientHeaders ?? [])),
]);

/**
 * Null when the provider is unknown or can serve the operation neither natively nor translated.
 * `model` picks the operations of a provider whose native ones depend on the deployment's model
 * (ProviderAdapter.operationsFor); without it, the provider's `operations`.
 */
export function planOperation(
  providerId: string,
  operation: Operation,
  model?: DeployedModel,
): OperationPlan | null {
  const provider = BY_ID.get(providerId);
  if (provider === undefined) return null;
  const operations =
    model !== undefined && provider.operationsFor !== undefined
      ? provider.operationsFor(model)
      : provider.operations;
  const native = operations[operation];
  if (native !== undefined) return { kind: 'native', adapter: native };
  for (const translators of [TRANSLATORS, TWO_HOP_TRANSLATORS]) {
    for (const translator of translators) {
      if (translator.from !== operation) continue;
      const adapter = operations[translator.to];
      if (adapter !== undefined) return { kind: 'translated', translator, adapter };
    }
  }
  return null;
}
