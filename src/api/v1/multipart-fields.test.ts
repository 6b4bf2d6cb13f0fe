import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, it } from 'node:test';
import { GatewayError } from '../../errors/gateway-error.ts';
import { readMultipartFields } from './multipart-fields.ts';

const BOUNDARY = 'sy-test-boundary';
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const LIMITS = { maxLookaheadBytes: 1024 * 1024, maxBodyBytes: 4 * 1024 * 1024 };

type Part = { name: string; value: string } | { name: string; filename: string; bytes: Buffer };

function form(parts: Part[]): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    const disposition =
      'filename' in part
        ? `form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: application/octet-stream`
        : `form-data; name="${part.name}"`;
    pieces.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n\r\n`));
    pieces.push('filename' in part ? part.bytes : Buffer.from(part.value));
    pieces.push(Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(pieces);
}

/** The body as a client stream of `chunkBytes` chunks. */
function clientStream(body: Buffer, chunkBytes = 64 * 1024): { stream: PassThrough } {
  const stream = new PassThrough({ highWaterMark: chunkBytes });
  const chunks: Buffer[] = [];
  for (let at = 0; at < body.length; at += chunkBytes) chunks.push(body.subarray(at, at + chunkBytes));
  Readable.from(chunks).pipe(stream);
  return { stream };
}

async function rejected(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof GatewayError, String(error));
    return error;
  }
  assert.fail('resolved');
}

describe('readMultipartFields', () => {
  const file = randomBytes(3 * 1024 * 1024);

  it('stops at the first file once the model is known, and the upload replays the body byte for byte', async () => {
    const body = form([
      { name: 'model', value: 'whisper' },
      { name: 'language', value: 'en' },
      { name: 'file', filename: 'a.wav', bytes: file },
      { name: 'prompt', value: 'after the file' },
    ]);
    const { stream } = clientStream(body);
    const { fields, upload } = await readMultipartFields(stream, CONTENT_TYPE, LIMITS);
    assert.deepEqual(fields.model, 'whisper');
    assert.equal(fields.language, 'en');
    assert.equal(fields.prompt, undefined, 'fields after the file are not read');
    assert.equal(stream.readableEnded, false, 'the file is not read before the upload is opened');
    assert.equal(upload.opened, false);
    const sent = await buffer(upload.open().stream);
    assert.ok(sent.equals(body));
  });

  it('keeps reading until the model when the file comes first', async () => {
    const body = form([
      { name: 'file', filename: 'a.wav', bytes: file },
      { name: 'model', value: 'whisper' },
    ]);
    const { fields, upload } = await readMultipartFields(clientStream(body).stream, CONTENT_TYPE, {
      maxLookaheadBytes: 8 * 1024 * 1024,
      maxBodyBytes: 8 * 1024 * 1024,
    });
    assert.equal(fields.model, 'whisper');
    assert.ok((await buffer(upload.open().stream)).equals(body));
  });

  it('refuses a model that does not come within the lookahead bound', async () => {
    const body = form([
      { name: 'file', filename: 'a.wav', bytes: file },
      { name: 'model', value: 'whisper' },
    ]);
    const error = await rejected(readMultipartFields(clientStream(body).stream, CONTENT_TYPE, LIMITS));
    assert.equal(error.code, 'invalid_request');
    assert.equal(error.param, 'model');
  });

  it('answers 413 when the streamed rest passes the body bound', async () => {
    const body = form([
      { name: 'model', value: 'whisper' },
      { name: 'file', filename: 'a.wav', bytes: file },
    ]);
    const { upload } = await readMultipartFields(clientStream(body).stream, CONTENT_TYPE, {
      maxLookaheadBytes: 1024 * 1024,
      maxBodyBytes: 1024 * 1024,
    });
    const error = await rejected(buffer(upload.open().stream));
    assert.equal(error.status, 413);
  });

  it('sends an upload once', async () => {
    const body = form([{ name: 'model', value: 'm' }]);
    const { upload } = await readMultipartFields(clientStream(body).stream, CONTENT_TYPE, LIMITS);
    await buffer(upload.open().stream);
    assert.equal(upload.opened, true);
    assert.throws(() => upload.open(), GatewayError);
  });

  it('refuses a body without a boundary and a malformed body', async () => {
    const noBoundary = await rejected(
      readMultipartFields(clientStream(Buffer.from('x')).stream, 'multipart/form-data', LIMITS),
    );
    assert.equal(noBoundary.code, 'invalid_request');
    const cut = form([{ name: 'model', value: 'm' }]).subarray(0, 40);
    const malformed = await rejected(readMultipartFields(clientStream(cut).stream, CONTENT_TYPE, LIMITS));
    assert.equal(malformed.code, 'invalid_request');
  });

  it('reads a form without a model to its end, for the schema to refuse', async () => {
    const { fields } = await readMultipartFields(
      clientStream(form([{ name: 'prompt', value: 'p' }])).stream,
      CONTENT_TYPE,
      LIMITS,
    );
    assert.deepEqual(fields, { prompt: 'p' });
  });
});
