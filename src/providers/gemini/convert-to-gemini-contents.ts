/**
 * Chat Completions messages -> Gemini `systemInstruction` and `contents` (API reference: Content,
 * Part). System and developer messages become the system instruction; user and tool turns are role
 * `user`, assistant turns role `model`. A tool result names its function, which Chat Completions
 * leaves to the earlier tool call with the same id. Consecutive turns of one role merge, so parallel
 * function responses travel in one content, as Gemini expects.
 */
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ChatContentPart, ChatMessage } from '../../formats/chat-completions/wire.ts';
import { appendMergedTurn } from '../shared/append-merged-turn.ts';
import { textOf } from '../shared/chat-content-text.ts';
import { dataUrlAsBase64 } from '../shared/data-url.ts';
import { functionMessageRefused, unsupportedParameter } from '../shared/unsupported-parameter.ts';
import { SKIP_THOUGHT_SIGNATURE, thoughtSignatureOf } from './gemini-tool-call-id.ts';
import type { GeminiContent, GeminiPart } from './gemini-wire-types.ts';
import { guessMediaType } from './guess-media-type.ts';

export interface GeminiConversation {
  systemInstruction?: { parts: Array<{ text: string }> };
  contents: GeminiContent[];
}

/** Inline bytes for a data URL, a file reference for anything else. */
function mediaPart(url: string, fallbackType: string): GeminiPart {
  const data = dataUrlAsBase64(url);
  if (data) return { inlineData: { mimeType: data.mediaType, data: data.base64 } };
  return { fileData: { mimeType: guessMediaType(url, fallbackType), fileUri: url } };
}

function userPart(part: ChatContentPart, param: string): GeminiPart {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'image_url':
      return mediaPart(part.image_url.url, 'image/jpeg');
    case 'input_audio':
      return { inlineData: { mimeType: `audio/${part.input_audio.format}`, data: part.input_audio.data } };
    case 'file': {
      const data = part.file.file_data ? dataUrlAsBase64(part.file.file_data) : null;
      if (!data) throw unsupportedParameter(param, 'Files must be sent inline as data URLs for this model.');
      return { inlineData: { mimeType: data.mediaType, data: data.base64 } };
    }
    default:
      throw unsupportedParameter(
        param,
        `Content parts of type ${part.type} are not supported in user messages.`,
      );
  }
}

function parseArguments(raw: string, param: string): Record<string, unknown> {
  let args: unknown;
  try {
    args = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (cause) {
    throw new GatewayError('invalid_request', {
      param,
      message: 'Tool call arguments must be valid JSON.',
      cause,
    });
  }
  // functionCall.args is a Struct: a JSON object.
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new GatewayError('invalid_request', {
      param,
      message: 'Tool call arguments must be a JSON object.',
    });
  }
  return args as Record<string, unknown>;
}

function modelParts(message: Extract<ChatMessage, { role: 'assistant' }>, at: string): GeminiPart[] {
  const parts: GeminiPart[] = [];
  const text = textOf(message.content);
  if (text !== '') parts.push({ text });
  for (const [k, call] of (message.tool_calls ?? []).entries()) {
    // Gemini 3 checks the signature on the first function call of a step; a history that did not
    // come from Gemini gets the documented skip value there instead.
    const signature = thoughtSignatureOf(call.id) ?? (k === 0 ? SKIP_THOUGHT_SIGNATURE : undefined);
    parts.push({
      functionCall: {
        name: call.function.name,
        args: parseArguments(call.function.arguments, `${at}.tool_calls[${k}].function.arguments`),
      },
      ...(signature ? { thoughtSignature: signature } : {}),
    });
  }
  return parts;
}

/** functionResponse.response is a Struct: a JSON object result is passed as it is, anything else wrapped. */
function functionResponse(content: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(content);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // Not JSON: plain text content.
  }
  return { content };
}

export function convertToGeminiContents(messages: readonly ChatMessage[]): GeminiConversation {
  const system: Array<{ text: string }> = [];
  const contents: GeminiContent[] = [];
  const toolNames = new Map<string, string>();
  const append = (role: GeminiContent['role'], parts: GeminiPart[]): void =>
    appendMergedTurn(contents, 'parts', { role, parts });
  for (const [i, message] of messages.entries()) {
    const at = `messages[${i}]`;
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = textOf(message.content);
        if (text !== '') system.push({ text });
        break;
      }
      case 'user':
        append(
          'user',
          typeof message.content === 'string'
            ? [{ text: message.content }]
            : message.content.map((part, j) => userPart(part, `${at}.content[${j}]`)),
        );
        break;
      case 'assistant':
        for (const call of message.tool_calls ?? []) toolNames.set(call.id, call.function.name);
        append('model', modelParts(message, at));
        break;
      case 'tool': {
        const name = toolNames.get(message.tool_call_id);
        if (name === undefined) {
          throw new GatewayError('invalid_request', {
            param: `${at}.tool_call_id`,
            message: 'A tool message must answer a tool call of an earlier assistant message.',
          });
        }
        append('user', [{ functionResponse: { name, response: functionResponse(textOf(message.content)) } }]);
        break;
      }
      case 'function':
        throw functionMessageRefused(at);
    }
  }
  return system.length > 0 ? { systemInstruction: { parts: system }, contents } : { contents };
}
