import { usageFromChat } from '../../formats/chat-completions/usage.ts';
import {
  type ChatCompletionRequest,
  chatCompletionSchema,
  type UpstreamChatCompletion,
  usageSchema,
} from '../../formats/chat-completions/wire.ts';
import { writtenExactly } from '../../formats/json-members.ts';
import type { Usage } from '../../formats/usage.ts';
import type { OperationAdapter } from '../types.ts';
import { type ChatChunkNormaliser, OpenAIChatStreamDecoder } from './openai-chat-stream-decoder.ts';
import { OPENAI_PATHS } from './openai-config.ts';
import type { OpenAIEndpoint } from './openai-endpoint.ts';
import { openAIJsonAdapter } from './openai-json-adapter.ts';
import { stripChatExtensions } from './strip-chat-extensions.ts';

/** The top level chatCompletionSchema requires of an answer passed on unparsed (its `usage` is read whole). */
const PASSED_ON_MEMBERS = {
  id: 'string',
  object: writtenExactly('"chat.completion"'),
  created: 'number',
  model: 'string',
  choices: 'array',
  usage: 'object',
} as const;

function passedOnUsage(usage: unknown): Usage | null {
  const checked = usageSchema.safeParse(usage);
  return checked.success ? usageFromChat(checked.data) : null;
}

/** What a provider speaking OpenAI's Chat with its own additions (Azure) changes of the adapter. */
export interface ChatVariant {
  chunkNormaliser?: () => ChatChunkNormaliser;
  contentFilterOf?: OperationAdapter<ChatCompletionRequest, UpstreamChatCompletion>['contentFilterOf'];
}

/**
 * `POST /chat/completions`. A streamed call always asks for `stream_options.include_usage` so
 * that the gateway knows the tokens spent; the decoder hides the usage chunk from a client that
 * did not ask for it. `top_k` and `cache_control` (an Anthropic client's, through
 * messages-via-chat) reach only servers that take them (strip-chat-extensions.ts).
 * `chunkNormaliser` makes one normaliser per stream for a provider whose chunks differ from
 * OpenAI's (Azure); `contentFilterOf` reads what its content filter withheld in a plain answer.
 */
export function openAIChatAdapter(
  endpoint: OpenAIEndpoint,
  variant: ChatVariant = {},
): OperationAdapter<ChatCompletionRequest, UpstreamChatCompletion> {
  return openAIJsonAdapter<ChatCompletionRequest, UpstreamChatCompletion>(endpoint, {
    path: OPENAI_PATHS['chat.completions'],
    answer: chatCompletionSchema,
    usageOf: (answer) => usageFromChat(answer.usage),
    passedOn: { members: PASSED_ON_MEMBERS, usageOf: passedOnUsage },
    contentFilterOf: variant.contentFilterOf,
    prepare(input, stream) {
      const body = endpoint.takesChatExtensions === true ? input : stripChatExtensions(input);
      if (!stream) return body;
      const options =
        typeof body.stream_options === 'object' && body.stream_options !== null ? body.stream_options : {};
      return { ...body, stream_options: { ...options, include_usage: true } };
    },
    createStreamDecoder: (target, { body, publicModel, passedOn }) =>
      new OpenAIChatStreamDecoder({
        provider: target.provider,
        publicModel,
        passedOn: passedOn === true,
        includeUsage: body?.stream_options?.include_usage === true,
        normaliseChunk: variant.chunkNormaliser?.(),
      }),
  });
}
