import type { ChatToolCall } from '../../formats/chat-completions/wire.ts';
import { newToolCallId } from './gemini-tool-call-id.ts';
import type { GeminiCandidate } from './gemini-wire-types.ts';

type Part = NonNullable<NonNullable<GeminiCandidate['content']>['parts']>[number];

export interface GeminiPartsRead {
  text: string;
  /** Thought summaries (`thought: true` parts), returned as Chat `reasoning_content`. */
  reasoning: string;
  toolCalls: ChatToolCall[];
}

/**
 * The visible text, the thought summaries and the function calls of a candidate's parts. A
 * function call's thought signature rides in its tool call id (see gemini-tool-call-id.ts).
 */
export function readGeminiParts(parts: readonly Part[]): GeminiPartsRead {
  let text = '';
  let reasoning = '';
  const toolCalls: ChatToolCall[] = [];
  for (const part of parts) {
    if (part.functionCall) {
      const legacySignature = (part.functionCall as { thoughtSignature?: unknown }).thoughtSignature;
      toolCalls.push({
        id: newToolCallId(
          part.thoughtSignature ?? (typeof legacySignature === 'string' ? legacySignature : undefined),
        ),
        type: 'function',
        function: { name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) },
      });
    } else if (typeof part.text === 'string') {
      if (part.thought === true) reasoning += part.text;
      else text += part.text;
    }
  }
  return { text, reasoning, toolCalls };
}
