import { Readable } from 'node:stream';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { MultipartUpload } from '../../pipeline/endpoint.ts';
import type { MultipartPassThrough } from '../../providers/types.ts';

/**
 * A client's multipart body on its way upstream: the bytes already read to find the form's
 * fields (the head), then the rest of the request stream as it arrives, never buffered. The
 * whole body is bounded by `maxBodyBytes` (413 past it), as fastify bounds JSON bodies.
 */
export class StreamedMultipartUpload implements MultipartUpload {
  readonly #contentType: string;
  readonly #head: readonly Buffer[];
  /** Null when the head is the whole body. */
  readonly #rest: Readable | null;
  readonly #maxBodyBytes: number;
  #opened = false;

  constructor(contentType: string, head: readonly Buffer[], rest: Readable | null, maxBodyBytes: number) {
    this.#contentType = contentType;
    this.#head = head;
    this.#rest = rest;
    this.#maxBodyBytes = maxBodyBytes;
  }

  get opened(): boolean {
    return this.#opened;
  }

  open(): MultipartPassThrough {
    if (this.#opened) {
      throw new GatewayError('internal_error', {
        detail: { reason: 'a multipart body can be sent once: an earlier attempt of this call sent it' },
      });
    }
    this.#opened = true;
    const stream = Readable.from(this.#bytes(), { objectMode: false });
    return { kind: 'multipart', contentType: this.#contentType, stream };
  }

  async *#bytes(): AsyncGenerator<Buffer> {
    let total = 0;
    for (const chunk of this.#head) {
      total += chunk.length;
      yield chunk;
    }
    if (this.#rest === null) return;
    // Not destroyed when the upstream stops reading early: the client still gets its answer.
    for await (const chunk of this.#rest.iterator({ destroyOnReturn: false })) {
      total += (chunk as Buffer).length;
      if (total > this.#maxBodyBytes) throw bodyTooLarge();
      yield chunk as Buffer;
    }
  }
}

export function bodyTooLarge(): GatewayError {
  return new GatewayError('request_too_large', { message: 'The request body is too large.' });
}
