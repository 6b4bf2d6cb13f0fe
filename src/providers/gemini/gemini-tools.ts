/**
 * Chat Completions `tools` / `tool_choice` -> Gemini `tools[].functionDeclarations` and
 * `toolConfig.functionCallingConfig` (API reference: Tool, FunctionDeclaration, ToolConfig:
 * modes AUTO, ANY, NONE; `allowedFunctionNames` narrows ANY to named functions).
 */
import type { ChatCompletionRequest } from '../../formats/chat-completions/wire.ts';
import { chatFunctionTools, namedToolChoice } from '../shared/chat-function-tools.ts';
import {
  convertJsonSchemaToGeminiSchema,
  isEmptyObjectSchema,
} from './convert-json-schema-to-gemini-schema.ts';
import type {
  GeminiFunctionDeclaration,
  GeminiGenerateContentRequest,
  GeminiToolConfig,
} from './gemini-wire-types.ts';

function toolConfig(choice: ChatCompletionRequest['tool_choice']): GeminiToolConfig | undefined {
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  if (typeof choice === 'object' && choice !== null) {
    return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [namedToolChoice(choice)] } };
  }
  return undefined;
}

export function convertToGeminiTools(
  body: ChatCompletionRequest,
): Pick<GeminiGenerateContentRequest, 'tools' | 'toolConfig'> {
  const tools = body.tools ?? [];
  if (tools.length === 0) return {};
  const declarations = chatFunctionTools(tools).map(
    ({ name, description, parameters }): GeminiFunctionDeclaration => ({
      name,
      ...(description ? { description } : {}),
      // Gemini refuses an OBJECT without properties: a function without arguments has no parameters.
      ...(isEmptyObjectSchema(parameters) ? {} : { parameters: convertJsonSchemaToGeminiSchema(parameters) }),
    }),
  );
  const config = toolConfig(body.tool_choice);
  return { tools: [{ functionDeclarations: declarations }], ...(config ? { toolConfig: config } : {}) };
}
