import {
  type UpstreamChatCompletion,
  upstreamReasoningText,
} from '../../../formats/chat-completions/wire.ts';
import { malformedAnswerError } from '../../shared/upstream-error.ts';
import { idSuffix } from '../shared/unsupported-parameter.ts';
import { type AnthropicStopReason, anthropicStopOf } from './finish-reason.ts';
import { type AnthropicUsageWire, anthropicUsageFromChat } from './usage.ts';

export type AnthropicResponseBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** The Anthropic message object produced from a chat completion. */
export interface TranslatedMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicResponseBlock[];
  stop_reason: AnthropicStopReason;
  stop_sequence: string | null;
  usage: AnthropicUsageWire;
}

/** The Anthropic id for a chat completion id: `msg_` and the upstream's unique part. */
export function messageIdFromChat(chatId: string): string {
  return `msg_${idSuffix(chatId, 'chatcmpl-')}`;
}

/**
 * Chat completion -> Anthropic message: the upstream's reasoning (`reasoning_content`, DeepSeek and
 * vLLM) as a thinking block, text, then tool_use blocks; refusals become text; the stop sequence
 * of `stopSequences` (the request's) that ended it, when the upstream said which. The thinking block's
 * signature is empty: no Claude signed it, and it is not sent back to a Chat upstream.
 */
export function chatToMessagesResponse(
  answer: UpstreamChatCompletion,
  stopSequences?: readonly string[],
): TranslatedMessage {
  const choice = answer.choices[0];
  const content: AnthropicResponseBlock[] = [];
  const reasoning = choice === undefined ? '' : upstreamReasoningText(choice.message);
  if (reasoning !== '') content.push({ type: 'thinking', thinking: reasoning, signature: '' });
  const text = `${choice?.message.content ?? ''}${choice?.message.refusal ?? ''}`;
  if (text !== '') content.push({ type: 'text', text });
  for (const call of choice?.message.tool_calls ?? []) {
    content.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: toolInput(call.function.arguments),
    });
  }
  const refused = choice?.message.refusal != null && choice.message.refusal !== '';
  const stop = anthropicStopOf(choice ?? {}, stopSequences);
  return {
    id: messageIdFromChat(answer.id),
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content,
    ...(refused ? { stop_reason: 'refusal', stop_sequence: null } : stop),
    usage: anthropicUsageFromChat(answer.usage),
  };
}

/**
 * The model's arguments as an object. Arguments that are not a JSON object cannot be expressed as
 * a tool_use input: an upstream failure, never replaced by `{}`.
 */
function toolInput(text: string): Record<string, unknown> {
  try {
    const value: unknown = text.trim() === '' ? {} : JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  throw malformedAnswerError('chat.completions', 'tool call arguments (not a JSON object)', {
    arguments: text.slice(0, 200),
  });
}
