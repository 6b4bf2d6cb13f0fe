import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../diagnostics/logger.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { renderErrorBody } from '../errors/render-error.ts';
import { errorShapeFor } from './error-response.ts';
import { requestIdFor } from './request-id.ts';

/** Node.js's parser errors (`clientError`) as the gateway's error: no request object exists yet. */
function clientErrorOf(error: NodeJS.ErrnoException): GatewayError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new GatewayError('invalid_request', {
      status: 408,
      message: 'The request was not received in time.',
    });
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return new GatewayError('invalid_request', {
      status: 431,
      message: 'The request line or headers are too large.',
    });
  }
  return new GatewayError('invalid_request', { message: 'The request is not valid HTTP.' });
}

/**
 * The path of the request the parser choked on, when its request line is in the packet: it picks
 * the error shape (Anthropic for /v1/messages). Never echoed.
 */
function pathOf(rawPacket: unknown): string {
  if (!Buffer.isBuffer(rawPacket)) return '';
  const line = rawPacket.subarray(0, 64).toString('latin1');
  const space = line.indexOf(' ');
  return space === -1 ? '' : line.slice(space + 1);
}

/**
 * fastify's `clientErrorHandler`: a malformed request, headers past the size bound, or a request
 * not received within HTTP_HEADERS_TIMEOUT_MS / HTTP_REQUEST_TIMEOUT_MS is answered in the
 * gateway's error shape with an `x-request-id`, and the connection is closed. Logged at debug:
 * these are the client's doing, and a flood of them must not flood the log.
 */
export function createClientErrorHandler(logger: Logger): (error: Error, socket: Socket) => void {
  return (error, socket) => {
    const failure = error as NodeJS.ErrnoException & { rawPacket?: unknown };
    if (failure.code === 'ECONNRESET' || socket.destroyed) return;
    const gatewayError = clientErrorOf(failure);
    logger.debug({ code: failure.code, status: gatewayError.status }, 'client error');
    // A request timeout can strike while an answer is being written (a slow multipart upload
    // under a call): bytes of our own then would corrupt that answer, so the socket just closes.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && inFlight?.headersSent !== true) {
      const body = JSON.stringify(renderErrorBody(gatewayError, errorShapeFor(pathOf(failure.rawPacket))));
      socket.write(
        `HTTP/1.1 ${gatewayError.status} ${STATUS_CODES[gatewayError.status]}\r\n` +
          'content-type: application/json\r\n' +
          `content-length: ${Buffer.byteLength(body)}\r\n` +
          `x-request-id: ${requestIdFor(undefined)}\r\n` +
          'connection: close\r\n\r\n' +
          body,
      );
    }
    socket.destroy();
  };
}

/** fastify's own 4xx before routing (a URL it cannot decode, a path segment past its bound). */
export function frameworkError(error: { code?: string }): GatewayError {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return new GatewayError('invalid_request', { status: 414, message: 'The URL is too long.' });
  }
  return new GatewayError('invalid_request', { message: 'The URL is not valid.' });
}
