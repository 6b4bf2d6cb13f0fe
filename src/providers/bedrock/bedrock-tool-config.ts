/**
 * Chat Completions `tools` / `tool_choice` -> Converse `toolConfig` (Bedrock API Reference:
 * ToolConfiguration, ToolSpecification, ToolChoice). Converse has no "none" choice: offering no tools
 * is the same, unless the conversation already holds tool blocks, which Converse only accepts with a
 * `toolConfig`; then the choice cannot be honoured and is refused.
 */
import type { ChatCompletionRequest } from '../shared/chat-completions-wire.ts';
import { chatFunctionTools, namedToolChoice } from '../shared/chat-function-tools.ts';
import { unsupportedParameter } from '../shared/unsupported-parameter.ts';
import type { BedrockMessage, BedrockToolChoice, BedrockToolConfig } from './bedrock-wire-types.ts';

const EMPTY_OBJECT_SCHEMA = Object.freeze({ type: 'object', properties: {} });

function hasToolBlocks(messages: readonly BedrockMessage[]): boolean {
  return messages.some((message) =>
    message.content.some((block) => 'toolUse' in block || 'toolResult' in block),
  );
}

function toolChoice(choice: ChatCompletionRequest['tool_choice']): BedrockToolChoice | undefined {
  if (choice === 'required') return { any: {} };
  if (choice === 'auto') return { auto: {} };
  if (typeof choice === 'object' && choice !== null) {
    return { tool: { name: namedToolChoice(choice) } };
  }
  return undefined;
}

export function convertToBedrockToolConfig(
  body: ChatCompletionRequest,
  messages: readonly BedrockMessage[],
): BedrockToolConfig | undefined {
  const tools = body.tools ?? [];
  if (tools.length === 0) return undefined;
  if (body.tool_choice === 'none') {
    if (!hasToolBlocks(messages)) return undefined;
    throw unsupportedParameter(
      'tool_choice',
      'tool_choice "none" is not supported by this model in a conversation with tool calls.',
    );
  }
  const specs = chatFunctionTools(tools).map(({ name, description, parameters }) => ({
    toolSpec: {
      name,
      ...(description ? { description } : {}),
      inputSchema: { json: parameters ?? EMPTY_OBJECT_SCHEMA },
    },
  }));
  const choice = toolChoice(body.tool_choice);
  return choice ? { tools: specs, toolChoice: choice } : { tools: specs };
}
