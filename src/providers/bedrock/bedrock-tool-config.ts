/**
 * Chat Completions `tools` / `tool_choice` -> Converse `toolConfig` (Bedrock API Reference:
 * ToolConfiguration, ToolSpecification, ToolChoice, CachePointBlock).
 *
 * Converse's ToolChoice has no "none", and Converse refuses a conversation holding toolUse or
 * toolResult blocks without a `toolConfig`. So when calls are forbidden (`tool_choice: "none"`, or
 * no tools offered) and the history holds tool blocks, the tools stay declared (the client's, or
 * ones named after the history's calls) and calls are prevented: Claude models get Anthropic's own
 * `tool_choice: { type: "none" }` through `additionalModelRequestFields`, and on every model a call
 * in the answer anyway is refused as a failed generation (see bedrock-answer-mode.ts).
 */
import type { ChatCompletionRequest, ChatFunctionTool } from '../../formats/chat-completions/wire.ts';
import { chatFunctionTools, namedToolChoice } from '../shared/chat-function-tools.ts';
import { cachePointAfter } from './bedrock-content-blocks.ts';
import type {
  BedrockCachePoint,
  BedrockConverseRequest,
  BedrockMessage,
  BedrockToolChoice,
  BedrockToolSpec,
} from './bedrock-wire-types.ts';

const EMPTY_OBJECT_SCHEMA = Object.freeze({ type: 'object', properties: {} });

/** Claude on Bedrock: model ids `anthropic.claude-...`, with or without a cross-region prefix (`us.`). */
export function isClaudeModel(modelId: string): boolean {
  return /(^|[.:/])anthropic\.claude-/.test(modelId);
}

/** The names of the functions the conversation's toolUse blocks called, in order. */
function historyToolNames(messages: readonly BedrockMessage[]): string[] {
  const names = new Set<string>();
  for (const message of messages)
    for (const block of message.content) if ('toolUse' in block) names.add(block.toolUse.name);
  return [...names];
}

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

/** The client's tools as ToolSpecifications, each marked tool followed by a cache point. */
function toolSpecs(body: ChatCompletionRequest): Array<BedrockToolSpec | BedrockCachePoint> {
  const functions = chatFunctionTools(body.tools);
  return (body.tools ?? []).flatMap((tool, i) => {
    const { name, description, parameters } = functions[i];
    const spec: BedrockToolSpec = {
      toolSpec: {
        name,
        ...(description ? { description } : {}),
        inputSchema: { json: parameters ?? EMPTY_OBJECT_SCHEMA },
      },
    };
    return [spec, ...cachePointAfter((tool as ChatFunctionTool).cache_control)];
  });
}

/** True when the request forbids tool calls: `tool_choice: "none"`, or no tools at all. */
export function toolCallsForbidden(body: ChatCompletionRequest): boolean {
  return body.tool_choice === 'none' || (body.tools ?? []).length === 0;
}

export function convertToBedrockToolConfig(
  body: ChatCompletionRequest,
  messages: readonly BedrockMessage[],
): Pick<BedrockConverseRequest, 'toolConfig' | 'additionalModelRequestFields'> {
  if (toolCallsForbidden(body)) {
    if (!hasToolBlocks(messages)) return {};
    const declared = (body.tools ?? []).length > 0 ? toolSpecs(body) : undefined;
    const tools =
      declared ??
      historyToolNames(messages).map((name) => ({
        toolSpec: { name, inputSchema: { json: EMPTY_OBJECT_SCHEMA } },
      }));
    return {
      toolConfig: { tools },
      ...(isClaudeModel(body.model)
        ? { additionalModelRequestFields: { tool_choice: { type: 'none' } } }
        : {}),
    };
  }
  const choice = toolChoice(body.tool_choice);
  return { toolConfig: choice ? { tools: toolSpecs(body), toolChoice: choice } : { tools: toolSpecs(body) } };
}
