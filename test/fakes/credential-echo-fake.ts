/**
 * An upstream that gives the credential it received back in its error answer, as real ones do
 * (OpenAI's "Incorrect API key provided: sk-...", a proxy's debug dump of the request headers):
 * every request gets a 401 in the provider's documented error shape, whose message quotes the
 * `Authorization`, `x-api-key` and `x-goog-api-key` values it got, and whose body carries them
 * again as a header dump. With `text: true` the answer is a plain-text 502 saying the same.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { FakeServer } from './fake-server.ts';

export type EchoShape = 'openai' | 'anthropic' | 'gemini';

const ECHOED_HEADERS = ['authorization', 'x-api-key', 'x-goog-api-key'] as const;

function echoedCredentials(headers: IncomingHttpHeaders): Record<string, string> {
  const echoed: Record<string, string> = {};
  for (const name of ECHOED_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string') echoed[name] = value;
  }
  return echoed;
}

function errorBody(shape: EchoShape, message: string, echoed: Record<string, string>): unknown {
  switch (shape) {
    case 'openai':
      return {
        error: { message, type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
        request_headers: echoed,
      };
    case 'anthropic':
      return { type: 'error', error: { type: 'authentication_error', message }, request_headers: echoed };
    case 'gemini':
      return {
        error: { code: 401, message, status: 'UNAUTHENTICATED' },
        request_headers: echoed,
      };
  }
}

export class CredentialEchoFake extends FakeServer {
  constructor(shape: EchoShape, options: { text?: boolean } = {}) {
    super((request, res) => {
      const echoed = echoedCredentials(request.headers);
      const quoted = Object.entries(echoed)
        .map(([name, value]) => `${name}: ${value}`)
        .join('; ');
      const message = `Incorrect API key provided (${quoted}). Your key ${Object.values(echoed).join(', ')} was refused.`;
      if (options.text) res.text(502, `upstream proxy error, request was ${quoted}`);
      else res.json(401, errorBody(shape, message, echoed));
    });
  }

  get baseUrl(): string {
    return this.url;
  }
}
