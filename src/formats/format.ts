/**
 * A client wire format (Chat Completions, Messages, Responses): everything the gateway knows of
 * one, behind one object, so that the endpoints, the pipeline, the response cache and the
 * translators ask the format rather than switch on an operation name. Each lives in
 * formats/<name>/index.ts; its parts (wire types, body schema, event builders, usage mapping,
 * assembly, replay) in the files beside it.
 */
import type { z } from 'zod';
import type { GatewayError } from '../errors/gateway-error.ts';
import type { ErrorShape, UpstreamErrorMessages } from '../errors/render-error.ts';
import type { CapabilityUse } from './capability-use.ts';
import type { Json } from './json.ts';
import type { AnswerAssembler } from './stream-assembler.ts';
import type { StreamEvent } from './stream-event.ts';

export interface ClientFormat {
  /** The operation whose wire format this is (one of providers/types.ts OPERATIONS). */
  readonly operation: 'chat.completions' | 'messages' | 'responses';
  /** The shape of this format's error answers and error events. */
  readonly errorShape: ErrorShape;
  /** Validates a client's request body; unknown fields pass through (body-schema.ts). */
  readonly bodySchema: z.ZodType;
  /**
   * The capabilities of the model catalog (tools, vision, reasoning, structured outputs) a request
   * body uses, each with the field that uses it (capabilities.ts).
   */
  capabilitiesUsed(body: Readonly<Json>): CapabilityUse[];
  /**
   * A fresh assembler of the events a streamed call sent its client into the JSON answer a plain
   * call would have received (DESIGN.md section 5, Response cache).
   */
  createAssembler(): AnswerAssembler;
  /**
   * A cached answer replayed as the stream a streaming client would have received (DESIGN.md
   * section 5, Response cache): the cache key leaves `stream` out, so an entry stored from a plain
   * call can answer a streamed one. Each text, refusal, tool input or argument string goes out as
   * one delta: a client accumulating deltas ends with exactly the stored answer. `request` is the
   * client's body (a chat client's `stream_options`).
   *
   * The stored answer is checked against the format's wire schema first; an entry of another shape
   * is no answer (null), never an exception, so the call is served from upstream instead.
   */
  replay(answer: unknown, request: Readonly<Json>): StreamEvent[] | null;
  /** Appends the generated text one stream event carries (`data`: the event's JSON object) to `texts`. */
  streamedText(data: Readonly<Json>, texts: string[]): void;
  /**
   * The honest end of a broken stream (DESIGN.md section 4): an error event in this format, never
   * a silent clean end.
   */
  errorEvent(error: GatewayError, messages?: UpstreamErrorMessages): StreamEvent;
}
