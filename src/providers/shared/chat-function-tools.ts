import type {
  ChatCompletionRequest,
  ChatFunctionTool,
  ChatNamedToolChoice,
} from '../../formats/chat-completions/wire.ts';
import { unsupportedParameter } from './unsupported-parameter.ts';

/**
 * The functions of a request's `tools`, for an upstream that takes function tools only: a tool of
 * another type (`custom`, a built-in) is a 400 naming it, never dropped.
 */
export function chatFunctionTools(
  tools: ChatCompletionRequest['tools'],
): Array<ChatFunctionTool['function']> {
  return (tools ?? []).map((tool, i) => {
    if (tool.type !== 'function') {
      throw unsupportedParameter(`tools[${i}].type`, 'Only function tools are supported by this model.');
    }
    return (tool as ChatFunctionTool).function;
  });
}

/**
 * The function an object `tool_choice` names (`{ type: 'function', function: { name } }`). Any
 * other object form (`allowed_tools`, `custom`) is a 400 naming `tool_choice` for an upstream
 * that can only force one named function.
 */
export function namedToolChoice(choice: object): string {
  const named = choice as Partial<ChatNamedToolChoice>;
  const name = named.type === 'function' ? named.function?.name : undefined;
  if (typeof name !== 'string' || name === '') {
    throw unsupportedParameter(
      'tool_choice',
      'Only a named function tool_choice is supported by this model.',
    );
  }
  return name;
}
