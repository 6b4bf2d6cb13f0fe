import type { AnthropicMessagesRequest } from '../../../formats/messages/wire.ts';
import { unsupportedParameter } from '../../shared/unsupported-parameter.ts';

/**
 * JSON mode (`response_format: {type: 'json_object'}`) on Claude. Claude's structured outputs
 * need a schema with `additionalProperties: false` on every object, so "any JSON object" cannot be
 * said with `output_config.format`; instead the model is made to call this one tool, whose input
 * is any object, and the call's input comes back to the client as the message's JSON text (the
 * tool-use pattern Anthropic documents for JSON output).
 */
export const JSON_MODE_TOOL = 'json_response';

/** Offers and forces the JSON tool; the client's own tools cannot be offered beside it. */
export function applyJsonModeTool(request: AnthropicMessagesRequest): void {
  if (request.tools !== undefined && request.tools.length > 0) {
    throw unsupportedParameter(
      'response_format',
      "response_format 'json_object' cannot be combined with tools for this model; use 'json_schema'.",
    );
  }
  request.tools = [
    {
      name: JSON_MODE_TOOL,
      description: 'Give the answer as a JSON object.',
      input_schema: { type: 'object' },
    },
  ];
  request.tool_choice = { type: 'tool', name: JSON_MODE_TOOL };
}
