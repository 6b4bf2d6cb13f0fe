import {
  type ChatThinkingBlock,
  type UpstreamChatCompletion,
  upstreamReasoningText,
} from '../../../formats/chat-completions/wire.ts';
import type { ResponsesRequest } from '../../../formats/responses/wire.ts';
import {
  reasoningItem,
  responseEnvelope,
  responseIds,
  responsesUsageFromChat,
  statusFromFinishReason,
} from './envelope.ts';
import { chatTokenLogprobs, functionCallObject, partObject } from './output-items.ts';
import { encodeThinkingBlocks, wantsEncryptedReasoning } from './reasoning.ts';
import { ResponsesToolSet } from './tools.ts';

/**
 * Chat completion -> response object: a `reasoning` item when the upstream showed its reasoning
 * (`reasoning_content`: Claude's thinking, DeepSeek, vLLM), one `message` output item (output_text,
 * or refusal) when there is text, then one `function_call` item per tool call.
 */
export function chatToResponsesResponse(
  answer: UpstreamChatCompletion,
  request: ResponsesRequest,
): Record<string, unknown> {
  const choice = answer.choices[0];
  const ids = responseIds(answer.id);
  const { status, incompleteReason } = statusFromFinishReason(choice?.finish_reason);
  const output: unknown[] = [];
  const content: unknown[] = [];
  const reasoning = choice === undefined ? '' : upstreamReasoningText(choice.message);
  const blocks = (choice?.message as { thinking_blocks?: ChatThinkingBlock[] } | undefined)?.thinking_blocks;
  const encrypted =
    blocks != null && blocks.length > 0 && wantsEncryptedReasoning(request)
      ? encodeThinkingBlocks(blocks)
      : undefined;
  if (reasoning !== '' || encrypted !== undefined)
    output.push(reasoningItem(ids.item('rs', 0), reasoning, encrypted));
  if (choice?.message.content != null && choice.message.content !== '') {
    content.push(partObject('output_text', choice.message.content, chatTokenLogprobs(choice)));
  }
  if (choice?.message.refusal != null && choice.message.refusal !== '') {
    content.push({ type: 'refusal', refusal: choice.message.refusal });
  }
  if (content.length > 0) {
    output.push({ id: ids.item('msg', output.length), type: 'message', status, role: 'assistant', content });
  }
  const tools = ResponsesToolSet.of(request);
  for (const call of choice?.message.tool_calls ?? []) {
    const item = {
      kind: 'function_call' as const,
      outputIndex: output.length,
      id: ids.item('fc', output.length),
      callId: call.id,
      origin: tools.origin(call.function.name),
      arguments: call.function.arguments,
    };
    output.push(functionCallObject(item, 'completed'));
  }
  return responseEnvelope(request, {
    id: ids.response,
    createdAt: answer.created,
    model: answer.model,
    status,
    incompleteReason,
    output,
    usage: responsesUsageFromChat(answer.usage),
  });
}
