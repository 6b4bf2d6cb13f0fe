import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { GatewayError } from '../../errors/gateway-error.ts';
import { bodyTooLarge, StreamedMultipartUpload } from './multipart-upload.ts';

/**
 * Reading the text fields of a multipart/form-data call (RFC 7578) without holding its files.
 *
 * The gateway must know `model` (and wants the other text fields, for the pre-flight checks)
 * before it can pick a deployment, but the upstream must get the file. So the request stream is
 * parsed with busboy while its bytes are kept, up to the first file part once `model` is known;
 * the kept bytes (part headers and small fields) then replay in front of the rest of the stream,
 * which goes upstream as it arrives, through the adapter's model rewrite.
 *
 * Clients order fields as they like: the Python SDK sends fields before files, the Node SDK and
 * curl in the caller's order, and OpenAI's examples put `file` before `model`. When the file comes
 * first, the bytes are kept until `model` arrives, up to `maxLookaheadBytes` (the body limit, so
 * at most one copy of an upload the gateway accepts anyway); a body whose `model` is not within
 * that bound is refused. Fields after the first file part, once `model` is known, are not read:
 * the pre-flight checks see only the fields before it, and the upstream judges the others.
 */

/** Longest text field kept (a prompt is at most 32,000 characters in OpenAI's API reference). */
const MAX_FIELD_BYTES = 256 * 1024;
const MAX_FIELDS = 100;

export interface MultipartLimits {
  /** Bytes kept while looking for `model` (and the fields before the first file). */
  maxLookaheadBytes: number;
  /** The whole body's bound. */
  maxBodyBytes: number;
}

export interface MultipartFields {
  /** Text fields read before the stream was handed on; the last value of a repeated name. */
  fields: Record<string, string>;
  upload: StreamedMultipartUpload;
}

function invalid(message: string, param: string | null = null): GatewayError {
  return new GatewayError('invalid_request', { param, message });
}

/** A busboy parser that records text fields and whether a file part has begun. */
function fieldReader(contentType: string) {
  const state = { fields: {} as Record<string, string>, fileSeen: false, error: null as GatewayError | null };
  const parser = busboy({
    headers: { 'content-type': contentType },
    limits: { fieldSize: MAX_FIELD_BYTES, fields: MAX_FIELDS },
  });
  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) state.error ??= invalid(`The form field '${name}' is too long.`, name);
    state.fields[name] = value;
  });
  parser.on('file', (_name, stream) => {
    state.fileSeen = true;
    // Its bytes are in the head already; a parser stopped mid-file ends it with an error.
    stream.on('error', () => {});
    stream.resume();
  });
  parser.on('fieldsLimit', () => {
    state.error ??= invalid('The form has too many fields.');
  });
  parser.on('error', () => {
    state.error ??= invalid('The multipart body is malformed.');
  });
  return { parser, state };
}

/** Stops a parser mid-body; the "Unexpected end of form" this raises is expected. */
function abandon(parser: busboy.Busboy): void {
  parser.removeAllListeners('error');
  parser.on('error', () => {});
  parser.destroy();
}

function write(parser: busboy.Busboy, chunk: Buffer): Promise<void> {
  return new Promise((resolve) => parser.write(chunk, () => resolve()));
}

function end(parser: busboy.Busboy): Promise<void> {
  return new Promise((resolve) => {
    parser.once('close', resolve);
    parser.once('error', () => resolve());
    parser.end();
  });
}

/**
 * Reads the text fields of a multipart body from `raw` (the request stream, unread) and returns
 * them with the upload that replays what was read before the rest of `raw`.
 */
export async function readMultipartFields(
  raw: Readable,
  contentType: string,
  limits: MultipartLimits,
): Promise<MultipartFields> {
  let reader: ReturnType<typeof fieldReader>;
  try {
    reader = fieldReader(contentType);
  } catch {
    throw invalid('The multipart body has no boundary.');
  }
  const { parser, state } = reader;
  const head: Buffer[] = [];
  let ended = true;
  try {
    let kept = 0;
    for await (const chunk of raw.iterator({ destroyOnReturn: false })) {
      head.push(chunk as Buffer);
      kept += (chunk as Buffer).length;
      await write(parser, chunk as Buffer);
      if (state.error !== null) throw state.error;
      if (state.fields.model !== undefined && state.fileSeen) {
        ended = false;
        break;
      }
      if (kept > limits.maxLookaheadBytes) throw lookaheadExceeded(kept, limits);
    }
  } catch (error) {
    abandon(parser);
    throw error;
  }
  if (ended) {
    await end(parser);
    if (state.error !== null) throw state.error;
  } else {
    abandon(parser);
  }
  const upload = new StreamedMultipartUpload(contentType, head, ended ? null : raw, limits.maxBodyBytes);
  return { fields: state.fields, upload };
}

function lookaheadExceeded(kept: number, limits: MultipartLimits): GatewayError {
  if (kept > limits.maxBodyBytes) return bodyTooLarge();
  return invalid(
    `The model field must come within the first ${limits.maxLookaheadBytes} bytes of the form.`,
    'model',
  );
}
