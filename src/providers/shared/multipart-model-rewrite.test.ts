import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, test } from 'node:test';
import busboy from 'busboy';
import fc from 'fast-check';
import { GatewayError } from '../../errors/gateway-error.ts';
import {
  MAX_MODEL_VALUE_BYTES,
  MultipartModelRewriter,
  multipartBoundary,
  rewriteMultipartModel,
} from './multipart-model-rewrite.ts';

const BOUNDARY = '----switchyard7MA4YWxkTrZu0gW';
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

interface Part {
  name: string;
  value: Buffer | string;
  filename?: string;
}

function encode(parts: Part[], options: { preamble?: string; epilogue?: string } = {}): Buffer {
  const chunks: Buffer[] = [];
  if (options.preamble !== undefined) chunks.push(Buffer.from(`${options.preamble}\r\n`));
  for (const part of parts) {
    const disposition =
      part.filename === undefined
        ? `form-data; name="${part.name}"`
        : `form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: application/octet-stream`;
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n\r\n`));
    chunks.push(Buffer.from(part.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  if (options.epilogue !== undefined) chunks.push(Buffer.from(options.epilogue));
  return Buffer.concat(chunks);
}

/** Feeds `bytes` split at `cuts` through the rewriter and returns its output. */
async function rewrite(bytes: Buffer, model: string, cuts: number[] = []): Promise<Buffer> {
  const pieces: Buffer[] = [];
  let start = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    pieces.push(bytes.subarray(start, cut));
    start = cut;
  }
  pieces.push(bytes.subarray(start));
  const source = Readable.from(pieces.filter((p) => p.length > 0));
  return buffer(
    rewriteMultipartModel({ kind: 'multipart', contentType: CONTENT_TYPE, stream: source }, model).stream,
  );
}

async function parse(
  bytes: Buffer,
): Promise<{ fields: Record<string, string>; files: Record<string, Buffer> }> {
  const fields: Record<string, string> = {};
  const files: Record<string, Buffer> = {};
  const reads: Array<Promise<void>> = [];
  await new Promise<void>((resolve, reject) => {
    const parser = busboy({ headers: { 'content-type': CONTENT_TYPE } });
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (name, stream) => {
      reads.push(
        buffer(stream).then((b) => {
          files[name] = b;
        }),
      );
    });
    parser.on('close', resolve);
    parser.on('error', reject);
    parser.end(bytes);
  });
  await Promise.all(reads);
  return { fields, files };
}

describe('multipartBoundary', () => {
  test('reads plain and quoted boundaries', () => {
    assert.equal(multipartBoundary('multipart/form-data; boundary=abc'), 'abc');
    assert.equal(multipartBoundary('multipart/form-data; charset=utf-8; boundary="a;b c"'), 'a;b c');
    assert.equal(multipartBoundary('Multipart/Form-Data; BOUNDARY=xyz'), 'xyz');
  });
  test('null when absent, too long or not multipart', () => {
    assert.equal(multipartBoundary('multipart/form-data'), null);
    assert.equal(multipartBoundary(`multipart/form-data; boundary=${'x'.repeat(71)}`), null);
    assert.equal(multipartBoundary('application/json; boundary=abc'), null);
  });
});

describe('rewriteMultipartModel', () => {
  const audio = randomBytes(200_000);
  const body = encode([
    { name: 'file', value: audio, filename: 'speech.mp3' },
    { name: 'model', value: 'public-whisper' },
    { name: 'language', value: 'en' },
  ]);

  test('replaces the model value and leaves every other byte as it was', async () => {
    const out = await rewrite(body, 'whisper-1');
    const expected = Buffer.from(body.toString('latin1').replace('public-whisper', 'whisper-1'), 'latin1');
    assert.ok(out.equals(expected));
    const parsed = await parse(out);
    assert.equal(parsed.fields.model, 'whisper-1');
    assert.equal(parsed.fields.language, 'en');
    assert.ok(parsed.files.file.equals(audio));
  });

  test('a body without a model part passes unchanged', async () => {
    const noModel = encode([{ name: 'file', value: audio, filename: 'a.wav' }]);
    assert.ok((await rewrite(noModel, 'whisper-1')).equals(noModel));
  });

  test('preamble and epilogue are kept', async () => {
    const wrapped = encode([{ name: 'model', value: 'm' }], {
      preamble: 'This is a preamble.',
      epilogue: 'bye\r\n',
    });
    const out = await rewrite(wrapped, 'real-model');
    assert.equal(out.toString(), wrapped.toString().replace('\r\n\r\nm\r\n', '\r\n\r\nreal-model\r\n'));
  });

  test('a file named model (a file part) is not the model field', async () => {
    const tricky = encode([
      { name: 'model', value: 'public' },
      { name: 'image', value: 'name="model"', filename: 'model' },
    ]);
    const parsed = await parse(await rewrite(tricky, 'dall-e-2'));
    assert.equal(parsed.fields.model, 'dall-e-2');
    assert.equal(parsed.files.image.toString(), 'name="model"');
  });

  test('file bytes flow before the upload ends (nothing is buffered beyond a delimiter length)', async () => {
    const rewriter = new MultipartModelRewriter(BOUNDARY, 'x');
    const out: Buffer[] = [];
    rewriter.on('data', (chunk: Buffer) => out.push(chunk));
    const head = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\n`,
    );
    rewriter.write(head);
    rewriter.write(randomBytes(64 * 1024));
    await new Promise((resolve) => setImmediate(resolve));
    const emitted = Buffer.concat(out).length;
    assert.ok(emitted >= head.length + 64 * 1024 - (BOUNDARY.length + 4), `emitted ${emitted}`);
    rewriter.destroy();
  });

  test('a model value longer than the limit is refused', async () => {
    const huge = encode([{ name: 'model', value: 'm'.repeat(MAX_MODEL_VALUE_BYTES + 1) }]);
    await assert.rejects(
      rewrite(huge, 'x'),
      (e: unknown) => e instanceof GatewayError && e.code === 'invalid_request',
    );
  });

  test('a content type without a boundary is refused at once', () => {
    assert.throws(
      () =>
        rewriteMultipartModel(
          { kind: 'multipart', contentType: 'multipart/form-data', stream: Readable.from([]) },
          'x',
        ),
      GatewayError,
    );
  });

  test('an error of the client stream reaches the rewritten stream', async () => {
    const source = new Readable({ read() {} });
    const rewritten = rewriteMultipartModel(
      { kind: 'multipart', contentType: CONTENT_TYPE, stream: source },
      'x',
    ).stream;
    source.destroy(new Error('client went away'));
    await assert.rejects(buffer(rewritten), /client went away/);
  });

  test('property: any split of the body gives the same output', async () => {
    const small = encode([
      { name: 'prompt', value: 'a cat' },
      { name: 'image', value: randomBytes(3000), filename: 'cat.png' },
      { name: 'model', value: 'public-image' },
      { name: 'n', value: '2' },
    ]);
    const expected = await rewrite(small, 'gpt-image-1');
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: small.length - 1 }), { maxLength: 30 }),
        async (cuts) => {
          assert.deepEqual(await rewrite(small, 'gpt-image-1', cuts), expected);
        },
      ),
      { numRuns: 200 },
    );
    assert.equal((await parse(expected)).fields.model, 'gpt-image-1');
  });
});
