/**
 * Claude on Bedrock through InvokeModel / InvokeModelWithResponseStream (Anthropic, "Claude on
 * Amazon Bedrock"; Bedrock API reference, "InvokeModel"): the Messages body Claude takes on
 * Bedrock (claude-body.ts), so thinking with its exact budget, signed and redacted
 * thinking, betas, `cache_control` and `stop_sequence` reach Claude and come back as sent. The
 * answer is Anthropic's message; the stream is an AWS event stream whose `chunk` events carry
 * Anthropic's stream events, base64 in `bytes` (bedrock-claude-stream-decoder.ts).
 */
import type { AnthropicMessage, AnthropicMessagesRequest } from '../../formats/messages/wire.ts';
import { anthropicMessagesAdapter } from '../anthropic/anthropic-messages.ts';
import { type ClaudePlatform, claudePlatformBody, mergedBetas } from '../anthropic/claude-body.ts';
import type { DeploymentTarget, OperationAdapter } from '../types.ts';
import { bedrockClientBetas } from './bedrock-claude-betas.ts';
import { BedrockClaudeStreamDecoder } from './bedrock-claude-stream-decoder.ts';
import {
  type BedrockEndpoint,
  bedrockProviderOptionsSchema,
  resolveBedrockEndpoint,
} from './bedrock-config.ts';
import { bedrockSignedRequest } from './bedrock-signed-request.ts';

export const BEDROCK_CLAUDE: ClaudePlatform = Object.freeze({
  anthropicVersion: 'bedrock-2023-05-31',
  betasInBody: true,
  streamInBody: false,
});

/** `POST /model/{modelId}/invoke` or `/invoke-with-response-stream`. */
export function invokeModelUrl(endpoint: BedrockEndpoint, modelId: string, stream: boolean): string {
  return `${endpoint.baseUrl}/model/${encodeURIComponent(modelId)}/${stream ? 'invoke-with-response-stream' : 'invoke'}`;
}

/** Betas a deployment turns on for every call (`providerOptions.betas`, e.g. a 1M context window). */
function deploymentBetas(target: DeploymentTarget): readonly string[] {
  return bedrockProviderOptionsSchema.safeParse(target.providerOptions).data?.betas ?? [];
}

export function bedrockClaudeOperation(
  now: () => Date,
): OperationAdapter<AnthropicMessagesRequest, AnthropicMessage> {
  return {
    buildRequest({ target, body, stream, clientHeaders = {} }) {
      const endpoint = resolveBedrockEndpoint(target);
      const url = invokeModelUrl(endpoint, target.upstreamModel, stream);
      const client = bedrockClientBetas(mergedBetas([], clientHeaders['anthropic-beta']));
      const betas = mergedBetas([...deploymentBetas(target), ...client], undefined);
      const payload = JSON.stringify(claudePlatformBody(body, BEDROCK_CLAUDE, betas, stream));
      return bedrockSignedRequest({ target, endpoint, url, payload, stream, now: now() });
    },
    parseResponse: anthropicMessagesAdapter.parseResponse,
    usageOf: anthropicMessagesAdapter.usageOf,
    createStreamDecoder: (_target, { publicModel }) => new BedrockClaudeStreamDecoder(publicModel),
  };
}
