import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ChatCompletionRequest } from '../../formats/chat-completions/wire.ts';
import { convertToBedrockToolConfig } from '../bedrock/bedrock-tool-config.ts';
import { convertToGeminiTools } from '../gemini/gemini-tools.ts';
import { namedToolChoice } from './chat-function-tools.ts';

const TOOLS = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];

function isToolChoiceRefusal(error: unknown): boolean {
  return (
    error instanceof GatewayError && error.code === 'unsupported_parameter' && error.param === 'tool_choice'
  );
}

describe('namedToolChoice', () => {
  it('reads the function a tool_choice names', () => {
    assert.equal(namedToolChoice({ type: 'function', function: { name: 'lookup' } }), 'lookup');
  });

  it('refuses other object forms with a 400 naming tool_choice (regression: a TypeError, so a 500)', () => {
    const allowedTools = { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [] } };
    assert.throws(() => namedToolChoice(allowedTools), isToolChoiceRefusal);
    const body = {
      model: 'm',
      messages: [],
      tools: TOOLS,
      tool_choice: allowedTools,
    } as unknown as ChatCompletionRequest;
    assert.throws(() => convertToGeminiTools(body), isToolChoiceRefusal);
    assert.throws(() => convertToBedrockToolConfig(body, []), isToolChoiceRefusal);
  });
});
