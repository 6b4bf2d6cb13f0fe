/**
 * What the request changes in how a Converse answer is read: a call the request forbade
 * (`tool_choice: "none"`, or no tools) is a failed generation, never passed on as a call; in JSON
 * mode the forced `json_response` tool's input is the answer's content (see bedrock-output-format.ts);
 * with `parallel_tool_calls: false`, which Converse has no switch for, the first call is kept.
 */
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ChatCompletionRequest } from '../../formats/chat-completions/wire.ts';
import { stopSequences } from '../shared/chat-parameter-map.ts';
import { JSON_RESPONSE_TOOL, usesJsonResponseTool } from './bedrock-output-format.ts';
import { toolCallsForbidden } from './bedrock-tool-config.ts';

export interface BedrockAnswerMode {
  callsForbidden: boolean;
  jsonTool: boolean;
  singleToolCall?: boolean;
  /** The request's stop sequences, for the one an answer matched (bedrock-stop-sequence.ts). */
  stopSequences?: readonly string[];
}

export function bedrockAnswerMode(body: ChatCompletionRequest | undefined): BedrockAnswerMode {
  if (!body) return { callsForbidden: false, jsonTool: false };
  return {
    callsForbidden: toolCallsForbidden(body),
    jsonTool: usesJsonResponseTool(body),
    singleToolCall: body.parallel_tool_calls === false,
    stopSequences: body.stop == null ? [] : (stopSequences(body.stop) as string[]),
  };
}

/** How a toolUse block of the answer is read. */
export function toolUseRole(mode: BedrockAnswerMode, name: string): 'json' | 'call' {
  if (mode.jsonTool && name === JSON_RESPONSE_TOOL) return 'json';
  if (mode.callsForbidden) {
    throw new GatewayError('upstream_generation_failed', {
      detail: { provider: 'bedrock', reason: 'the model called a tool the request forbade', tool: name },
    });
  }
  return 'call';
}
