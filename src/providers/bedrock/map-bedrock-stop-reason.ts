import { GatewayError } from '../../errors/gateway-error.ts';
import type { ChatFinishReason } from '../../formats/chat-completions/wire.ts';

/**
 * Converse `stopReason` (Bedrock API Reference: ConverseOutput / MessageStopEvent) -> Chat
 * Completions `finish_reason`. `malformed_model_output` and `malformed_tool_use` (the model wrote
 * something Bedrock could not read, e.g. a tool call with broken JSON), and any reason AWS adds
 * later, are failures with no Chat equivalent: reporting them as `stop` would end an agent loop on
 * a broken turn, so they are a 502 `upstream_generation_failed` (an error event in a stream).
 */
export const BEDROCK_STOP_REASONS = Object.freeze({
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  // The model ran into its context window while generating: the answer is cut, as with max_tokens.
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
} satisfies Record<string, ChatFinishReason>);

export function mapBedrockStopReason(stopReason: string): ChatFinishReason {
  if (!Object.hasOwn(BEDROCK_STOP_REASONS, stopReason)) {
    throw new GatewayError('upstream_generation_failed', { detail: { provider: 'bedrock', stopReason } });
  }
  return BEDROCK_STOP_REASONS[stopReason as keyof typeof BEDROCK_STOP_REASONS];
}
