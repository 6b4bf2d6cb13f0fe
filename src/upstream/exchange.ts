import { GatewayError } from '../errors/gateway-error.ts';
import { chunksText } from '../formats/heap-text.ts';
import type { AbortSource } from '../pipeline/call-signal.ts';
import type { ProviderAdapter, UpstreamRequest } from '../providers/types.ts';
import type { UpstreamClient, UpstreamResponse, UpstreamTimeouts } from './upstream-client.ts';
import { httpFailure, parseUpstreamBody, transportFailure } from './upstream-failure.ts';

/**
 * One request and its answer's status, as every upstream call makes it (an attempt, a token
 * count): a transport failure is classified; a non-2xx answer is read within the answer bound and
 * classified by the provider's table (`native`: the upstream saw the client's own body).
 */
export async function exchange(
  client: UpstreamClient,
  request: UpstreamRequest,
  signal: AbortSource,
  timeouts: UpstreamTimeouts,
  provider: ProviderAdapter,
  native: boolean,
): Promise<UpstreamResponse> {
  let response: UpstreamResponse;
  try {
    response = await client.send(request, signal, timeouts);
  } catch (error) {
    throw transportFailure(error, signal);
  }
  if (response.status >= 200 && response.status < 300) return response;
  const text = await readAnswerText(response, signal, client.maxAnswerBytes);
  throw httpFailure(provider, response.status, parseUpstreamBody(text), response.headers, native);
}

/**
 * The whole body as text, read with stream events: `for await` over the body costs an async
 * generator, its end-of-stream watcher and a promise per chunk (docs/decisions/hot-path.md). A body that closes
 * before its end without an error (destroyed) fails like a premature close. A body past `maxBytes`
 * is dropped (the connection with it) and fails as `upstream_error`, never held whole in memory.
 */
export async function readAnswerText(
  response: UpstreamResponse,
  signal: AbortSource,
  maxBytes: number,
): Promise<string> {
  return chunksText(await readAnswerChunks(response, signal, maxBytes));
}

/** The bytes `chunks` make one after the other, as one buffer (the chunk itself when there is one). */
export function joined(chunks: readonly Buffer[]): Buffer {
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/**
 * The whole body as the chunks it arrived in, read as `readAnswerText` says: an answer passed on
 * is read and written in place, so a megabyte answer makes no second buffer of its size outside
 * the V8 heap (docs/decisions/hot-path.md, Answer chunks never joined).
 */
export function readAnswerChunks(
  response: UpstreamResponse,
  signal: AbortSource,
  maxBytes: number,
): Promise<Buffer[]> {
  const body = response.body;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let ended = false;
    body.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      ended = true;
      chunks.length = 0;
      body.destroy();
      reject(
        new GatewayError('upstream_error', { detail: { reason: `answer larger than ${maxBytes} bytes` } }),
      );
    });
    body.once('end', () => {
      ended = true;
      resolve(chunks);
    });
    body.once('error', (error) => reject(transportFailure(error, signal)));
    body.once('close', () => {
      if (!ended) reject(transportFailure(prematureClose(), signal));
    });
  });
}

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}
