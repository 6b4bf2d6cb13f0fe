/**
 * Responses tools -> Chat function tools, and back for the calls the model makes.
 *
 * - `function`: the same function.
 * - `custom` (freeform input, what Codex's `apply_patch` can be): a function taking one string,
 *   `input`, with the tool's grammar or format in its description; the call comes back as a
 *   `custom_tool_call` with that string as its `input`.
 * - `namespace` (a group of function and custom tools): each member as its own function named
 *   `<namespace>__<name>`; the call comes back with its `namespace` and own name.
 * - Tools OpenAI runs on its servers (`web_search`, `tool_search`, `file_search`, `code_interpreter`,
 *   `image_generation`, `mcp`, ...) and OpenAI's built-in client tools (`local_shell`, `shell`,
 *   `apply_patch`, `computer_use_preview`) have no Chat equivalent: they are left out of the
 *   offer (the model answers without them, as it would where the tool finds nothing), unless
 *   `tool_choice` forces one, which is a 400 (docs/providers.md).
 */
import type { ChatFunctionTool, ChatToolChoice } from '../../../formats/chat-completions/wire.ts';
import type { ResponsesRequest } from '../../../formats/responses/wire.ts';
import { unsupportedParameter } from '../../shared/unsupported-parameter.ts';

/** The Responses tool a Chat function stands for. */
export interface ToolOrigin {
  kind: 'function' | 'custom';
  name: string;
  namespace?: string;
}

type ResponsesTool = NonNullable<ResponsesRequest['tools']>[number];
type ToolFields = {
  type: string;
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
  format?: { type?: string; syntax?: string; definition?: string } | null;
  tools?: ToolFields[];
};

const NAMESPACE_SEPARATOR = '__';

/** The Chat function name of a Responses tool, by its own name and namespace. */
export function chatToolName(name: string, namespace?: string | null): string {
  return namespace == null || namespace === '' ? name : `${namespace}${NAMESPACE_SEPARATOR}${name}`;
}

/** The tools a Responses request offers, as Chat functions, and where each came from. */
export class ResponsesToolSet {
  readonly chatTools: ChatFunctionTool[] = [];
  readonly #origins = new Map<string, ToolOrigin>();

  constructor(tools: readonly ResponsesTool[] | undefined) {
    for (const tool of tools ?? []) this.#add(tool as ToolFields, undefined);
  }

  static of(request: ResponsesRequest): ResponsesToolSet {
    return new ResponsesToolSet(request.tools);
  }

  /** The Responses tool behind a Chat function name; a function of that name when none was offered. */
  origin(chatName: string): ToolOrigin {
    return this.#origins.get(chatName) ?? { kind: 'function', name: chatName };
  }

  /** Chat's tool choice for the Responses one; `allowed_tools` also narrows `chatTools`. */
  toolChoice(choice: NonNullable<ResponsesRequest['tool_choice']>): ChatToolChoice {
    if (typeof choice === 'string') return choice;
    const fields = choice as { type: string; name?: unknown; namespace?: unknown; mode?: unknown };
    if ((fields.type === 'function' || fields.type === 'custom') && typeof fields.name === 'string') {
      const name = chatToolName(fields.name, typeof fields.namespace === 'string' ? fields.namespace : null);
      return { type: 'function', function: { name } };
    }
    if (fields.type === 'allowed_tools')
      return this.#allowedTools(choice as { mode?: unknown; tools?: unknown });
    throw unsupportedParameter(
      'tool_choice',
      `A tool_choice of type '${fields.type}' is not supported by this model.`,
    );
  }

  #allowedTools(choice: { mode?: unknown; tools?: unknown }): ChatToolChoice {
    const allowed = new Set(
      (Array.isArray(choice.tools) ? (choice.tools as ToolFields[]) : []).map((tool) =>
        chatToolName(tool.name, (tool as { namespace?: string }).namespace),
      ),
    );
    const kept = this.chatTools.filter((tool) => allowed.has(tool.function.name));
    this.chatTools.splice(0, this.chatTools.length, ...kept);
    return choice.mode === 'required' ? 'required' : 'auto';
  }

  #add(tool: ToolFields, namespace: string | undefined): void {
    if (tool.type === 'namespace') {
      for (const member of tool.tools ?? []) this.#add(member, tool.name);
      return;
    }
    if (tool.type !== 'function' && tool.type !== 'custom') return;
    const name = chatToolName(tool.name, namespace);
    this.#origins.set(name, { kind: tool.type, name: tool.name, ...(namespace ? { namespace } : {}) });
    this.chatTools.push(tool.type === 'function' ? functionTool(name, tool) : customTool(name, tool));
  }
}

function functionTool(name: string, tool: ToolFields): ChatFunctionTool {
  const fn: ChatFunctionTool['function'] = { name };
  if (tool.description != null) fn.description = tool.description;
  if (tool.parameters != null) fn.parameters = tool.parameters;
  if (tool.strict != null) fn.strict = tool.strict;
  return { type: 'function', function: fn };
}

/** A freeform tool as a function of one string; its grammar, when it has one, described. */
function customTool(name: string, tool: ToolFields): ChatFunctionTool {
  const format = tool.format;
  const grammar =
    format?.type === 'grammar' && typeof format.definition === 'string'
      ? `The input follows this ${format.syntax ?? ''} grammar:\n${format.definition}`
      : 'The input is free text.';
  const fn: ChatFunctionTool['function'] = {
    name,
    parameters: {
      type: 'object',
      properties: { input: { type: 'string', description: grammar } },
      required: ['input'],
      additionalProperties: false,
    },
  };
  if (tool.description != null) fn.description = tool.description;
  return { type: 'function', function: fn };
}

/** A custom tool's input from the arguments of the Chat call that stands for it. */
export function customToolInput(argumentsText: string): string {
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    const input = (parsed as { input?: unknown } | null)?.input;
    if (typeof input === 'string') return input;
  } catch {
    // Not the JSON object the function asked for: the model's text is the input as it is.
  }
  return argumentsText;
}
