/**
 * Tool search (Anthropic, "Tool search tool"; beta `advanced-tool-use-2025-11-20`): a tool with
 * `defer_loading: true` is not shown to Claude until a tool search names it, which the client's
 * search tool does with `tool_reference` blocks in its result (Claude Code's `ToolSearch`).
 * Anthropic expands those references on its side; here a deferred tool is offered to the Chat
 * model once a reference to it is in the conversation, and the reference reads as a line of text.
 */
import type { AnthropicMessageParam, AnthropicTool } from '../../../formats/messages/wire.ts';

/** The tools to offer: every tool not deferred, and the deferred ones a `tool_reference` named. */
export function offeredTools(
  tools: readonly AnthropicTool[],
  messages: readonly AnthropicMessageParam[],
): AnthropicTool[] {
  if (!tools.some((tool) => tool.defer_loading === true)) return [...tools];
  const referenced = referencedTools(messages);
  return tools.filter((tool) => tool.defer_loading !== true || referenced.has(tool.name));
}

/** The text a `tool_reference` block stands for in a Chat tool message. */
export function toolReferenceText(block: object): string {
  return `Tool ${String((block as { tool_name?: unknown }).tool_name)} is now available.`;
}

function referencedTools(messages: readonly AnthropicMessageParam[]): Set<string> {
  const names = new Set<string>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_result' || !Array.isArray(block.content)) continue;
      for (const part of block.content as Array<{ type: string; tool_name?: unknown }>) {
        if (part.type === 'tool_reference' && typeof part.tool_name === 'string') names.add(part.tool_name);
      }
    }
  }
  return names;
}
