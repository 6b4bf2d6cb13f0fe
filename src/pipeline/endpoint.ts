import type { z } from 'zod';
import type { ErrorShape } from '../errors/render-error.ts';
import type { ClientFormat } from '../formats/format.ts';
import type { MultipartPassThrough, Operation } from '../providers/types.ts';

/**
 * How a client sends an endpoint's body: a JSON document, or multipart/form-data with files
 * (OpenAI API reference: image edits and variations, audio transcriptions).
 */
export type RequestFormat = 'json' | 'multipart';

/**
 * Everything the one generic inference handler needs to serve an endpoint, so endpoints are data, not copies of a handler:
 * the operation, the wire format of errors, how to validate the body.
 */
export interface Endpoint {
  operation: Operation;
  /**
   * The client wire format of a streamable text endpoint (Chat Completions, Messages, Responses):
   * what the response cache, the stream writer and the attempt ask about its answers and events.
   * Absent for embeddings, images and transcriptions.
   */
  format?: ClientFormat;
  /** Path under /v1, e.g. `/chat/completions`. */
  path: string;
  shape: ErrorShape;
  requestFormat: RequestFormat;
  /**
   * Validates the client's body in the endpoint's wire format; unknown fields pass through. For a
   * multipart endpoint: its text fields (as strings; numbers are coerced), files excluded.
   */
  bodySchema: z.ZodType<EndpointBody>;
  /** The body as OpenAPI documents it, when it differs from bodySchema (multipart: the file parts). */
  docSchema?: z.ZodType;
  /** True when `stream: true` is accepted. */
  streamable: boolean;
  summary: string;
}

/**
 * Where a multipart call's upload travels: on its body, under this symbol, so that it reaches
 * the attempt with the body whatever the router does with it (a fallback's `{ ...body }` copies
 * it; JSON serialisation, cache keys and records never see it).
 */
export const MULTIPART_UPLOAD: unique symbol = Symbol('switchyard.multipartUpload');

/**
 * The client's multipart stream, handed over once: a stream cannot be replayed, so a second
 * attempt of the same call (retry, fallback) after the first one opened it cannot send it again.
 */
export interface MultipartUpload {
  /** True once open() was called: the body is (being) sent and cannot be sent again. */
  readonly opened: boolean;
  /** The pass-through body for the adapter; throws a GatewayError when already opened. */
  open(): MultipartPassThrough;
}

/** The fields every inference body shares; the rest is the endpoint's own wire format. */
export interface EndpointBody {
  model: string;
  stream?: boolean | null;
  /** Present on multipart endpoints: the upload whose text fields are the other properties. */
  [MULTIPART_UPLOAD]?: MultipartUpload;
  [field: string]: unknown;
}

/** The upload of a multipart call's body, or undefined for a JSON call. */
export function multipartUploadOf(body: EndpointBody): MultipartUpload | undefined {
  return body[MULTIPART_UPLOAD];
}
