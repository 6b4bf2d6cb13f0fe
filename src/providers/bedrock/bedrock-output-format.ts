/**
 * Chat `response_format` on Converse. `json_schema` uses Converse's native structured output,
 * `outputConfig.textFormat` (Bedrock API Reference: OutputConfig, OutputFormat, JsonSchemaDefinition;
 * the models that take it are listed in the user guide, "Structured outputs"; others answer 400).
 * `json_object` has no native form (the native one needs a schema), so it is a forced tool, as other
 * gateways do it: one tool, `json_response`, taking any object, chosen by `toolChoice`; its input
 * comes back as the message content (see bedrock-answer-mode.ts). A forced tool cannot sit beside
 * the client's own tools; Claude's thinking, which refuses forced tool use, is left off in JSON mode
 * (see bedrock-thinking.ts).
 */
import type { ChatCompletionRequest } from '../../formats/chat-completions/wire.ts';
import { unsupportedParameter } from '../shared/unsupported-parameter.ts';
import type { BedrockConverseRequest, BedrockOutputConfig, BedrockToolConfig } from './bedrock-wire-types.ts';

export const JSON_RESPONSE_TOOL = 'json_response';

const JSON_RESPONSE_SPEC = Object.freeze({
  toolSpec: {
    name: JSON_RESPONSE_TOOL,
    description: 'Respond with a JSON object: the input of this tool is the answer.',
    inputSchema: { json: { type: 'object' } },
  },
});

/** True when `response_format` is answered through the forced `json_response` tool. */
export function usesJsonResponseTool(body: ChatCompletionRequest): boolean {
  const format = body.response_format;
  return format?.type === 'json_object' || (format?.type === 'json_schema' && !format.json_schema.schema);
}

function nativeFormat(body: ChatCompletionRequest): BedrockOutputConfig | undefined {
  const format = body.response_format;
  if (format?.type !== 'json_schema' || !format.json_schema.schema) return undefined;
  const { name, description, schema } = format.json_schema;
  return {
    textFormat: {
      type: 'json_schema',
      structure: {
        jsonSchema: { schema: JSON.stringify(schema), name, ...(description ? { description } : {}) },
      },
    },
  };
}

/** Adds the output format to a request whose tools and thinking are already decided. */
export function withResponseFormat(
  body: ChatCompletionRequest,
  request: BedrockConverseRequest,
): BedrockConverseRequest {
  const outputConfig = nativeFormat(body);
  if (outputConfig) return { ...request, outputConfig };
  if (!usesJsonResponseTool(body)) return request;
  if ((body.tools ?? []).length > 0) {
    throw unsupportedParameter(
      'response_format',
      'JSON mode on Bedrock is a forced tool: it cannot be combined with tools. Use a json_schema response_format.',
    );
  }
  // Declared tools from the history (see bedrock-tool-config.ts) stay, beside the JSON tool.
  const toolConfig: BedrockToolConfig = {
    tools: [...(request.toolConfig?.tools ?? []), JSON_RESPONSE_SPEC],
    toolChoice: { tool: { name: JSON_RESPONSE_TOOL } },
  };
  const { additionalModelRequestFields: _noneChoice, ...rest } = request;
  return { ...rest, toolConfig };
}
