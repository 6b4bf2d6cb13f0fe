import type { OperationAdapter, Usage } from '../types.ts';
import { OPENAI_PATHS } from './openai-config.ts';
import type { OpenAIEndpoint } from './openai-endpoint.ts';
import { type TranscriptionResponse, transcriptionResponseSchema } from './openai-media-wire.ts';
import { openAIMultipartAdapter } from './openai-multipart-adapter.ts';

/** Tokens for gpt-4o transcribe models, seconds of audio for whisper-1 (usage or verbose_json). */
export function usageFromTranscription(answer: TranscriptionResponse): Usage | null {
  const usage = answer.usage;
  if (usage?.type === 'tokens') return { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens };
  const seconds = usage?.type === 'duration' ? usage.seconds : answer.duration;
  return seconds == null ? null : { inputTokens: 0, outputTokens: 0, audioSeconds: seconds };
}

/**
 * `POST /audio/transcriptions` (multipart). Text formats (`text`, `srt`, `vtt`) come back as
 * plain text and are passed on as such, with no usage.
 */
export function openAITranscriptionsAdapter(
  endpoint: OpenAIEndpoint,
): OperationAdapter<unknown, TranscriptionResponse | string> {
  return openAIMultipartAdapter(endpoint, {
    path: OPENAI_PATHS['audio.transcriptions'],
    answer: transcriptionResponseSchema,
    usageOf: usageFromTranscription,
    textAnswers: true,
  });
}
