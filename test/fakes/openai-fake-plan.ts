/**
 * How the OpenAI fake decides its deterministic answers (chat and responses alike). The text is
 * `echo: <last user text>` (image parts appear as `[image:<media type or url>]`); after a tool
 * result it is `tool result: <content>`. With function tools offered, a tool choice that forces
 * one, or the word "tool" in the last user text, makes it call the chosen (or first) tool with
 * `{"echo": <last user text>}`. Tokens are whitespace-separated words; a max-tokens limit below the
 * answer's length cuts it and reports `length` / `incomplete`.
 */
import { countWords } from './fake-server.ts';
import { scriptedToolCall } from './scripted-tool-call.ts';

export const FAKE_CREATED = 1_700_000_000;
/** Completion tokens a tool call counts for, whatever its arguments. */
export const TOOL_CALL_TOKENS = 10;

export interface Plan {
  text: string;
  toolCall: { name: string; arguments: string } | null;
  finishReason: 'stop' | 'length' | 'tool_calls';
  promptTokens: number;
  completionTokens: number;
}

export type Json = Record<string, unknown>;

export function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: Json) => {
      if (typeof part.text === 'string') return part.text;
      if (part.type === 'image_url') return imageMarker(String((part.image_url as Json)?.url ?? ''));
      if (part.type === 'input_image') return imageMarker(String(part.image_url ?? part.file_id ?? ''));
      return '';
    })
    .join('');
}

function imageMarker(url: string): string {
  if (url.startsWith('data:')) return ` [image:${url.slice(5, url.indexOf(';'))}]`;
  return ` [image:${url}]`;
}

export function decide(options: {
  lastUserText: string;
  toolResult: string | null;
  toolNames: string[];
  forcedTool: string | null;
  toolsForced: boolean;
  toolsDisabled: boolean;
  maxTokens: number | null;
  promptText: string;
}): Plan {
  const promptTokens = countWords(options.promptText);
  const scripted =
    options.toolResult === null && !options.toolsDisabled
      ? scriptedToolCall(options.lastUserText, options.toolNames)
      : null;
  if (scripted !== null) {
    const toolCall = { name: scripted.name, arguments: JSON.stringify(scripted.input) };
    return {
      text: '',
      toolCall,
      finishReason: 'tool_calls',
      promptTokens,
      completionTokens: TOOL_CALL_TOKENS,
    };
  }
  const wantsTool =
    options.toolResult === null &&
    options.toolNames.length > 0 &&
    !options.toolsDisabled &&
    (options.toolsForced || /\btool\b/i.test(options.lastUserText));
  if (wantsTool) {
    const name = options.forcedTool ?? options.toolNames[0];
    return {
      text: '',
      toolCall: { name, arguments: JSON.stringify({ echo: options.lastUserText }) },
      finishReason: 'tool_calls',
      promptTokens,
      completionTokens: TOOL_CALL_TOKENS,
    };
  }
  let text =
    options.toolResult === null ? `echo: ${options.lastUserText}` : `tool result: ${options.toolResult}`;
  let finishReason: Plan['finishReason'] = 'stop';
  const words = text.split(' ');
  if (options.maxTokens !== null && words.length > options.maxTokens) {
    text = words.slice(0, options.maxTokens).join(' ');
    finishReason = 'length';
  }
  return { text, toolCall: null, finishReason, promptTokens, completionTokens: countWords(text) };
}

/** Splits text into stream deltas: one word per delta, spaces kept. */
export function deltas(text: string): string[] {
  return text.split(' ').map((word, i) => (i === 0 ? word : ` ${word}`));
}

export function halves(text: string): string[] {
  const middle = Math.ceil(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
}
