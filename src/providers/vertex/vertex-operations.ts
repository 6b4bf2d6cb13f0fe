/**
 * The operations of a Vertex AI deployment, by the model's publisher: Google's models serve Chat
 * Completions with the Gemini adapter's body and answers, and embeddings (vertex-embeddings.ts);
 * Claude serves Messages with the Anthropic adapter's, in Vertex's form (no `model` in the body,
 * Vertex's `anthropic_version`). Other formats reach each through the translators.
 */
import type { AnthropicMessage, AnthropicMessagesRequest } from '../../formats/messages/wire.ts';
import { anthropicMessagesAdapter } from '../anthropic/anthropic-messages.ts';
import { type ClaudePlatform, claudePlatformBody } from '../anthropic/claude-body.ts';
import { generateContentChatOperation } from '../gemini/gemini-provider.ts';
import type { OperationAdapter, ProviderAdapter } from '../types.ts';
import { VERTEX_ANTHROPIC_VERSION, vertexModelUrl } from './vertex-config.ts';
import { vertexEmbeddingsOperation } from './vertex-embeddings.ts';

function jsonHeaders(stream: boolean): Record<string, string> {
  return { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' };
}

export function vertexGeminiOperations(now: () => Date): ProviderAdapter['operations'] {
  const chat = generateContentChatOperation(now, {
    url: (target, stream) =>
      vertexModelUrl(target, stream ? 'streamGenerateContent?alt=sse' : 'generateContent'),
    headers: (_target, stream) => jsonHeaders(stream),
  });
  return Object.freeze({
    'chat.completions': chat as OperationAdapter,
    embeddings: vertexEmbeddingsOperation as OperationAdapter,
  });
}

/** Vertex reads `stream` from the body; no betas are sent (Vertex takes them as a header, and no client header is forwarded to it). */
const VERTEX_CLAUDE: ClaudePlatform = {
  anthropicVersion: VERTEX_ANTHROPIC_VERSION,
  betasInBody: false,
  streamInBody: true,
};

const claudeMessages: OperationAdapter<AnthropicMessagesRequest, AnthropicMessage> = {
  ...anthropicMessagesAdapter,
  buildRequest({ target, body, stream }) {
    const upstream = claudePlatformBody(body as Record<string, unknown>, VERTEX_CLAUDE, [], stream);
    return {
      url: vertexModelUrl(target, stream ? 'streamRawPredict' : 'rawPredict'),
      method: 'POST',
      headers: jsonHeaders(stream),
      body: JSON.stringify(upstream),
    };
  },
};

export const vertexClaudeOperations: ProviderAdapter['operations'] = Object.freeze({
  messages: claudeMessages as OperationAdapter,
});
