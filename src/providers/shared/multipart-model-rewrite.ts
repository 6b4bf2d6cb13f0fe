/**
 * Replaces the value of the `model` field of a multipart/form-data body while it streams through,
 * so that the upstream sees the deployment's model instead of the public name, without buffering
 * the uploaded file. Only the part headers (bounded) and the model value (bounded) are held; file
 * bytes are passed on as they come, less a tail shorter than the delimiter that may be the start
 * of one. Framing follows RFC 2046 section 5.1.1 and RFC 7578.
 */
import { pipeline, Transform, type TransformCallback } from 'node:stream';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { MultipartPassThrough } from '../types.ts';

/** Part headers larger than this are refused rather than buffered (RFC 7578 parts have a few lines). */
export const MAX_PART_HEADER_BYTES = 16 * 1024;
/** A model name longer than this is not a model name: refused rather than buffered. */
export const MAX_MODEL_VALUE_BYTES = 1024;

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
const DASH_DASH = Buffer.from('--');

type State = 'body' | 'after-delimiter' | 'headers' | 'epilogue';

export class MultipartModelRewriter extends Transform {
  readonly #delimiter: Buffer;
  readonly #model: Buffer;
  #state: State = 'body';
  #pending: Buffer;
  /** Bytes of #pending that are the virtual CRLF put before the first delimiter, never emitted. */
  #virtual = CRLF.length;
  #inModelPart = false;
  #modelBytes = 0;
  #replaced = 0;

  constructor(boundary: string, model: string) {
    super();
    this.#delimiter = Buffer.from(`\r\n--${boundary}`);
    this.#model = Buffer.from(model, 'utf8');
    // The first delimiter may open the body with no CRLF before it: search as if there were one.
    this.#pending = Buffer.from(CRLF);
  }

  /** How many `model` parts were rewritten (for tests and diagnostics). */
  get replacedCount(): number {
    return this.#replaced;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
      this.#drain();
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    // A body cut short passes on as it came: the upstream judges it, as it would without us.
    if (this.#pending.length > 0) this.#emit(this.#pending);
    this.#pending = Buffer.alloc(0);
    callback();
  }

  #drain(): void {
    for (;;) {
      const progressed =
        this.#state === 'body'
          ? this.#body()
          : this.#state === 'after-delimiter'
            ? this.#afterDelimiter()
            : this.#state === 'headers'
              ? this.#headers()
              : this.#epilogue();
      if (!progressed) return;
    }
  }

  #body(): boolean {
    const at = this.#pending.indexOf(this.#delimiter);
    if (at === -1) {
      const keep = Math.min(this.#pending.length, this.#delimiter.length - 1);
      const ready = this.#pending.length - keep;
      if (ready > 0) {
        this.#content(this.#pending.subarray(0, ready));
        this.#pending = this.#pending.subarray(ready);
      }
      return false;
    }
    this.#content(this.#pending.subarray(0, at));
    if (this.#inModelPart) {
      this.#emit(this.#model);
      this.#replaced++;
      this.#inModelPart = false;
    }
    this.#emit(this.#pending.subarray(at, at + this.#delimiter.length));
    this.#pending = this.#pending.subarray(at + this.#delimiter.length);
    this.#state = 'after-delimiter';
    return true;
  }

  #content(bytes: Buffer): void {
    if (!this.#inModelPart) {
      this.#emit(bytes);
      return;
    }
    this.#modelBytes += bytes.length;
    if (this.#modelBytes > MAX_MODEL_VALUE_BYTES) {
      throw new GatewayError('invalid_request', { param: 'model', message: 'The model field is too long.' });
    }
  }

  #afterDelimiter(): boolean {
    if (this.#pending.length < 2) return false;
    if (this.#pending.subarray(0, 2).equals(DASH_DASH)) {
      this.#state = 'epilogue';
      return true;
    }
    this.#state = 'headers';
    return true;
  }

  #headers(): boolean {
    const end = this.#pending.indexOf(HEADER_END);
    if (end === -1) {
      if (this.#pending.length > MAX_PART_HEADER_BYTES) {
        throw new GatewayError('invalid_request', { message: 'A multipart part has oversized headers.' });
      }
      return false;
    }
    const headerBlock = this.#pending.subarray(0, end + HEADER_END.length);
    this.#inModelPart = formDataName(headerBlock.toString('latin1')) === 'model';
    this.#modelBytes = 0;
    this.#emit(headerBlock);
    this.#pending = this.#pending.subarray(headerBlock.length);
    this.#state = 'body';
    return true;
  }

  #epilogue(): boolean {
    if (this.#pending.length > 0) this.#emit(this.#pending);
    this.#pending = Buffer.alloc(0);
    return false;
  }

  #emit(bytes: Buffer): void {
    let out = bytes;
    if (this.#virtual > 0) {
      const drop = Math.min(this.#virtual, out.length);
      this.#virtual -= drop;
      out = out.subarray(drop);
    }
    if (out.length > 0) this.push(Buffer.from(out));
  }
}

/** Wraps a pass-through multipart body so that its `model` field carries `model`. */
export function rewriteMultipartModel(body: MultipartPassThrough, model: string): MultipartPassThrough {
  const boundary = multipartBoundary(body.contentType);
  if (boundary === null) {
    throw new GatewayError('invalid_request', { message: 'The multipart body has no boundary.' });
  }
  const rewriter = new MultipartModelRewriter(boundary, model);
  // pipeline() carries an error or an abort either way: a failed upload destroys the rewriter,
  // and the upstream request giving up destroys the client's stream.
  pipeline(body.stream, rewriter, () => {});
  return { kind: 'multipart', contentType: body.contentType, stream: rewriter };
}

/** The `boundary` parameter of a multipart content type (RFC 2046 section 5.1.1), or null. */
export function multipartBoundary(contentType: string): string | null {
  const [type, ...params] = splitParams(contentType);
  if (!type.toLowerCase().startsWith('multipart/')) return null;
  const boundary = params.find((p) => p.name === 'boundary')?.value;
  return boundary !== undefined && boundary.length > 0 && boundary.length <= 70 ? boundary : null;
}

/** The `name` of a part, from its Content-Disposition header (RFC 7578 section 4.2). */
function formDataName(headerBlock: string): string | null {
  for (const line of headerBlock.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon === -1 || line.slice(0, colon).trim().toLowerCase() !== 'content-disposition') continue;
    const [, ...params] = splitParams(line.slice(colon + 1));
    return params.find((p) => p.name === 'name')?.value ?? null;
  }
  return null;
}

interface HeaderParam {
  name: string;
  value: string;
}

/** Splits `value; a=b; c="d;e"` into the value and its parameters, honouring quoted strings. */
function splitParams(header: string): [string, ...HeaderParam[]] {
  const pieces: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < header.length; i++) {
    const c = header[i];
    if (quoted && c === '\\' && i + 1 < header.length) {
      current += c + header[++i];
    } else if (c === '"') {
      quoted = !quoted;
      current += c;
    } else if (c === ';' && !quoted) {
      pieces.push(current);
      current = '';
    } else current += c;
  }
  pieces.push(current);
  const [first, ...rest] = pieces;
  const params = rest.map((piece): HeaderParam => {
    const eq = piece.indexOf('=');
    const name = (eq === -1 ? piece : piece.slice(0, eq)).trim().toLowerCase();
    let value = eq === -1 ? '' : piece.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
      value = unquote(value.slice(1, -1));
    }
    return { name, value };
  });
  return [first.trim(), ...params];
}

/** Removes the backslash escapes of an RFC 9110 quoted-string's content. */
function unquote(content: string): string {
  let out = '';
  for (let i = 0; i < content.length; i++)
    out += content[i] === '\\' && i + 1 < content.length ? content[++i] : content[i];
  return out;
}
