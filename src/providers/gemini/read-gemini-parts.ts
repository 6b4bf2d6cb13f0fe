import type { ChatToolCall } from '../shared/chat-completions-wire.ts';
import { newToolCallId } from './gemini-tool-call-id.ts';
import type { GeminiCandidate } from './gemini-wire-types.ts';

type Part = NonNullable<NonNullable<GeminiCandidate['content']>['parts']>[number];

/**
 * The visible text and the function calls of a candidate's parts. Thought summaries (`thought:
 * true`) have no Chat Completions field and are left out; a function call's thought signature
 * rides in its tool call id (see gemini-tool-call-id.ts).
 */
export function readGeminiParts(parts: readonly Part[]): { text: string; toolCalls: ChatToolCall[] } {
  let text = '';
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
    } else if (typeof part.text === 'string' && part.thought !== true) {
      text += part.text;
    }
  }
  return { text, toolCalls };
}
