import type { Operation, OperationAdapter } from '../types.ts';
import { openAITranscriptionsAdapter } from './openai-audio.ts';
import { openAIChatAdapter } from './openai-chat.ts';
import type { OpenAIOperation } from './openai-config.ts';
import { openAIEmbeddingsAdapter } from './openai-embeddings.ts';
import type { OpenAIEndpoint } from './openai-endpoint.ts';
import {
  openAIImageEditsAdapter,
  openAIImageGenerationsAdapter,
  openAIImageVariationsAdapter,
} from './openai-images.ts';
import { openAIResponsesAdapter } from './openai-responses.ts';

/** Each OpenAI-format operation's adapter, built for a given endpoint. */
const OPENAI_ADAPTER_FACTORIES = Object.freeze({
  'chat.completions': openAIChatAdapter,
  responses: openAIResponsesAdapter,
  embeddings: openAIEmbeddingsAdapter,
  'images.generations': openAIImageGenerationsAdapter,
  'images.edits': openAIImageEditsAdapter,
  'images.variations': openAIImageVariationsAdapter,
  'audio.transcriptions': openAITranscriptionsAdapter,
} satisfies Record<OpenAIOperation, (endpoint: OpenAIEndpoint) => OperationAdapter>);

/**
 * The adapters of the listed operations for one endpoint: how OpenAI, Azure OpenAI and
 * compatible servers share one implementation and differ only in URL and authentication.
 */
export function openAIOperations(
  endpoint: OpenAIEndpoint,
  operations: readonly OpenAIOperation[],
): Readonly<Partial<Record<Operation, OperationAdapter>>> {
  const adapters: Partial<Record<Operation, OperationAdapter>> = {};
  for (const operation of operations) adapters[operation] = OPENAI_ADAPTER_FACTORIES[operation](endpoint);
  return Object.freeze(adapters);
}
