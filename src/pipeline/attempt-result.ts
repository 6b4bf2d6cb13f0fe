import { chunksText, heapText } from '../formats/heap-text.ts';
import type { ContentFilterHit, StreamEvent, Usage } from '../providers/types.ts';

/**
 * An answer's JSON as it will be written: text, bytes, or bytes in parts written one after the
 * other (a native answer with its model renamed, never joined: docs/decisions/hot-path.md, Answer
 * bytes written in parts).
 */
export type AnswerJson = string | Buffer | readonly Buffer[];

/** The JSON as one string, for the readers that need it whole (a parse, the response cache); parts are decoded without a join. */
export function answerJsonText(json: AnswerJson): string {
  if (typeof json === 'string') return json;
  return Buffer.isBuffer(json) ? heapText(json) : chunksText(json);
}

/**
 * A call's answer as the pipeline passes it on: from an upstream attempt (upstream/attempt.ts),
 * or from a stage that answered instead (a response-cache hit); JSON whole, or a stream of events.
 */
export type AttemptResult =
  | {
      kind: 'json';
      /** The answer in the endpoint's format; a string when the upstream answered text. */
      answer: unknown;
      /**
       * `answer` as JSON, when the upstream's own could be passed on (a native answer's bytes, its
       * model renamed in them: answer-text.ts, json-members.ts); absent when the writer must
       * serialise it.
       */
      json?: AnswerJson;
      usage: Usage | null;
      /** What the upstream's content filter withheld (OperationAdapter.contentFilterOf); absent when nothing. */
      contentFilter?: readonly ContentFilterHit[];
      /**
       * Set when `answer` is text to pass on as it is, with this content type (transcriptions
       * with `response_format` text, srt or vtt); absent for JSON.
       */
      textContentType?: string;
    }
  | {
      kind: 'stream';
      /**
       * The events in batches, one per upstream chunk (never empty): a stream of many small
       * events crosses the async iterators between here and the client once per chunk.
       */
      events: AsyncIterable<readonly StreamEvent[]>;
      usage: () => Usage | null;
      /** What the upstream's content filter withheld so far (StreamDecoder.contentFilter); absent for an upstream that names none. */
      contentFilter?: () => readonly ContentFilterHit[] | null;
      firstByteAtMs: () => number | null;
    };
