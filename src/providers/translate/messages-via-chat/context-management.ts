/**
 * Anthropic's context editing (`context_management.edits`, beta `context-management-2025-06-27`;
 * Anthropic, "Context editing"), reproduced on the conversation before it is translated, as
 * Anthropic applies it on its side before the prompt reaches Claude. Claude Code sends it on
 * every call, so refusing it would refuse Claude Code.
 *
 * - `clear_tool_uses_*`: once the input passes the trigger (default 100,000 input tokens, or a
 *   number of tool uses), the results of all tool uses but the last `keep` (default 3) are
 *   replaced by a placeholder, oldest first; tools in `exclude_tools` are kept; with
 *   `clear_tool_inputs` the calls' inputs are emptied too; with `clear_at_least`, nothing is
 *   cleared unless that many tokens would be.
 * - `clear_thinking_*`: a no-op here: thinking blocks are never sent to a Chat upstream.
 * - Any other edit is refused, naming it: the gateway cannot do what it asks.
 */
import { estimateInputTokens } from '../../../formats/estimate-tokens.ts';
import type {
  AnthropicContentBlock,
  AnthropicMessageParam,
  AnthropicMessagesRequest,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
} from '../../../formats/messages/wire.ts';
import { unsupportedParameter } from '../../shared/unsupported-parameter.ts';

/** What a cleared tool result says to the model instead of its content. */
export const CLEARED_TOOL_RESULT = '[This tool result was cleared to save context.]';

const DEFAULT_TRIGGER_TOKENS = 100_000;
const DEFAULT_KEEP_TOOL_USES = 3;

interface Threshold {
  type?: string;
  value?: number;
}
interface ClearToolUses {
  type: string;
  trigger?: Threshold | null;
  keep?: Threshold | null;
  clear_at_least?: Threshold | null;
  exclude_tools?: string[] | null;
  clear_tool_inputs?: boolean | string[] | null;
}

/** The request with its context edits applied to `messages`, and without `context_management`. */
export function applyContextManagement(body: AnthropicMessagesRequest): AnthropicMessagesRequest {
  const management = body.context_management as { edits?: unknown } | null | undefined;
  if (management == null) return body;
  const { context_management: _applied, ...rest } = body;
  const edits = Array.isArray(management.edits) ? (management.edits as ClearToolUses[]) : [];
  let request: AnthropicMessagesRequest = rest as AnthropicMessagesRequest;
  edits.forEach((edit, index) => {
    const type = typeof edit?.type === 'string' ? edit.type : '';
    if (type.startsWith('clear_thinking_')) return;
    if (!type.startsWith('clear_tool_uses_')) {
      throw unsupportedParameter(
        `context_management.edits[${index}]`,
        `Context edits of type '${type}' are not supported by this model.`,
      );
    }
    request = clearToolUses(request, edit);
  });
  return request;
}

interface ToolUse {
  use: AnthropicToolUseBlock;
  result: AnthropicToolResultBlock | undefined;
}

function clearToolUses(request: AnthropicMessagesRequest, edit: ClearToolUses): AnthropicMessagesRequest {
  const uses = toolUses(request.messages);
  if (!triggered(request, edit.trigger, uses.length)) return request;
  const keep = edit.keep?.value ?? DEFAULT_KEEP_TOOL_USES;
  const excluded = new Set(edit.exclude_tools ?? []);
  const cleared = uses
    .slice(0, Math.max(0, uses.length - keep))
    .filter((entry) => !excluded.has(entry.use.name) && entry.result !== undefined);
  if (cleared.length === 0) return request;
  const minimum = edit.clear_at_least?.value;
  if (minimum !== undefined && tokensOf(request, cleared) < minimum) return request;
  const clearInput = (name: string) =>
    edit.clear_tool_inputs === true ||
    (Array.isArray(edit.clear_tool_inputs) && edit.clear_tool_inputs.includes(name));
  const resultIds = new Set(cleared.map((entry) => entry.use.id));
  const inputIds = new Set(
    cleared.filter((entry) => clearInput(entry.use.name)).map((entry) => entry.use.id),
  );
  return { ...request, messages: request.messages.map((message) => edited(message, resultIds, inputIds)) };
}

/** Tool uses in order, each with its result when the conversation has it. */
function toolUses(messages: readonly AnthropicMessageParam[]): ToolUse[] {
  const uses: ToolUse[] = [];
  const byId = new Map<string, ToolUse>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_use') {
        const entry = { use: block as AnthropicToolUseBlock, result: undefined };
        uses.push(entry);
        byId.set(entry.use.id, entry);
      } else if (block.type === 'tool_result') {
        const result = block as AnthropicToolResultBlock;
        const entry = byId.get(result.tool_use_id);
        if (entry !== undefined) entry.result = result;
      }
    }
  }
  return uses;
}

function triggered(
  request: AnthropicMessagesRequest,
  trigger: Threshold | null | undefined,
  uses: number,
): boolean {
  if (trigger?.type === 'tool_uses') return uses >= (trigger.value ?? 0);
  return estimateInputTokens('messages', request) >= (trigger?.value ?? DEFAULT_TRIGGER_TOKENS);
}

/** The estimated tokens the cleared results hold. */
function tokensOf(request: AnthropicMessagesRequest, cleared: readonly ToolUse[]): number {
  const content = cleared.map((entry) => entry.result as AnthropicContentBlock);
  return estimateInputTokens('messages', {
    ...request,
    system: undefined,
    tools: undefined,
    messages: [{ role: 'user', content }],
  });
}

function edited(
  message: AnthropicMessageParam,
  resultIds: ReadonlySet<string>,
  inputIds: ReadonlySet<string>,
): AnthropicMessageParam {
  if (typeof message.content === 'string') return message;
  const content = message.content.map((block): AnthropicContentBlock => {
    if (block.type === 'tool_result' && resultIds.has((block as AnthropicToolResultBlock).tool_use_id)) {
      return { ...(block as AnthropicToolResultBlock), content: CLEARED_TOOL_RESULT };
    }
    if (block.type === 'tool_use' && inputIds.has((block as AnthropicToolUseBlock).id)) {
      return { ...(block as AnthropicToolUseBlock), input: {} };
    }
    return block;
  });
  return { ...message, content };
}
