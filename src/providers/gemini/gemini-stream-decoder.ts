/**
 * streamGenerateContent?alt=sse events -> Chat Completions chunks. Each SSE event carries one
 * GenerateContentResponse with the next parts of each candidate; the chunk that ends a candidate
 * carries its `finishReason`; `usageMetadata` is cumulative, the last one final. Thought parts
 * stream as `reasoning_content` deltas, `logprobsResult` as the chunk's `logprobs`. An `{ error }`
 * event, a blocked prompt, a failure finish reason (see map-gemini-finish-reason.ts) or an end
 * before every candidate finished is a GatewayError, which the client sees as an error event.
 */
import { ChatChunkWriter, type ChatChunkWriterOptions } from '../../formats/chat-completions/chunks.ts';
import { normaliseChatUsage } from '../../formats/chat-completions/usage.ts';
import type { ChatChunkToolCallDelta, ChatUsage } from '../../formats/chat-completions/wire.ts';
import { sseJson } from '../shared/sse-stream-decoder.ts';
import {
  malformedAnswerError,
  truncatedStreamError,
  upstreamGatewayError,
} from '../shared/upstream-error.ts';
import type { SseDecoder, SseMessage, StreamEvent, Usage } from '../types.ts';
import type { GeminiAnswerOptions } from './gemini-chat-response.ts';
import { classifyGeminiError, promptBlockedError } from './gemini-error.ts';
import { toChatLogprobs } from './gemini-logprobs.ts';
import { toChatUsage } from './gemini-usage.ts';
import { type GeminiCandidate, geminiGenerateContentResponseSchema } from './gemini-wire-types.ts';
import { mapGeminiFinishReason } from './map-gemini-finish-reason.ts';
import { readGeminiParts } from './read-gemini-parts.ts';

const PROVIDER = 'gemini';

interface CandidateState {
  toolCalls: number;
  finished: boolean;
}

export type GeminiStreamDecoderOptions = ChatChunkWriterOptions & GeminiAnswerOptions;

export class GeminiStreamDecoder implements SseDecoder {
  readonly framing = 'sse';
  readonly #chunks: ChatChunkWriter;
  readonly #singleToolCall: boolean;
  /** Candidate index -> what has been emitted for it. */
  readonly #candidates = new Map<number, CandidateState>();
  #usage: ChatUsage | null = null;

  constructor(options: GeminiStreamDecoderOptions) {
    this.#chunks = new ChatChunkWriter(options);
    this.#singleToolCall = options.singleToolCall === true;
  }

  finish(): StreamEvent[] {
    const states = [...this.#candidates.values()];
    if (states.length === 0 || states.some((state) => !state.finished)) {
      throw truncatedStreamError(PROVIDER, 'a finishReason for every candidate');
    }
    return this.#chunks.close(this.#usage);
  }

  usage(): Usage | null {
    return this.#usage ? normaliseChatUsage(this.#usage) : null;
  }

  read(message: SseMessage): StreamEvent[] {
    const data = sseJson(message, PROVIDER);
    if (typeof data === 'object' && data !== null && 'error' in data) {
      throw upstreamGatewayError(classifyGeminiError(0, data, {}), { provider: PROVIDER, during: 'stream' });
    }
    const parsed = geminiGenerateContentResponseSchema.safeParse(data);
    if (!parsed.success) throw malformedAnswerError(PROVIDER, 'stream chunk', parsed.error.issues);
    const response = parsed.data;
    if (response.promptFeedback?.blockReason) throw promptBlockedError(response.promptFeedback.blockReason);
    if (response.usageMetadata) this.#usage = toChatUsage(response.usageMetadata);
    return (response.candidates ?? []).flatMap((candidate, position) => this.#candidate(candidate, position));
  }

  #candidate(candidate: GeminiCandidate, position: number): StreamEvent[] {
    const index = candidate.index ?? position;
    const events: StreamEvent[] = [];
    let state = this.#candidates.get(index);
    if (!state) {
      state = { toolCalls: 0, finished: false };
      this.#candidates.set(index, state);
      events.push(this.#chunks.chunk(index, { role: 'assistant', content: '' }));
    }
    const read = readGeminiParts(candidate.content?.parts ?? []);
    const logprobs = toChatLogprobs(candidate.logprobsResult);
    if (read.reasoning !== '') events.push(this.#chunks.chunk(index, { reasoning_content: read.reasoning }));
    if (read.text !== '' || logprobs)
      events.push(this.#chunks.chunk(index, { content: read.text }, null, logprobs));
    const room = this.#singleToolCall ? Math.max(0, 1 - state.toolCalls) : read.toolCalls.length;
    const toolCalls = read.toolCalls.slice(0, room);
    if (toolCalls.length > 0) {
      const deltas = toolCalls.map(
        (call): ChatChunkToolCallDelta => ({
          index: state.toolCalls++,
          id: call.id,
          type: 'function',
          function: call.function,
        }),
      );
      events.push(this.#chunks.chunk(index, { tool_calls: deltas }));
    }
    if (candidate.finishReason !== undefined && !state.finished) {
      state.finished = true;
      events.push(
        this.#chunks.chunk(index, {}, mapGeminiFinishReason(candidate.finishReason, state.toolCalls > 0)),
      );
    }
    return events;
  }
}
